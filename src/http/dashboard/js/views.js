// views
