module wordwrap

go 1.22
