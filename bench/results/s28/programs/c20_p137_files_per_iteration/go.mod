module example.com/p137_files_per_iteration

go 1.26
