// graph
