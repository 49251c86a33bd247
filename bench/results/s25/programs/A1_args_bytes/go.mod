module ba2

go 1.26
