module mapkeys

go 1.26
