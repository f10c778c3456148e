module example.com/goportdefault

go 1.22
