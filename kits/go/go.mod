// The Go kit's module: the standard library only, so `go build` fetches nothing.
module golfbot

go 1.19
