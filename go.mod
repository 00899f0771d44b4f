module github.com/sfdbg/sfdbg

go 1.26.8

require (
	github.com/clipperhouse/uax29/v2 v2.7.0 // indirect
	github.com/go-delve/delve v1.27.2 // indirect
	github.com/mattn/go-runewidth v0.0.31 // indirect
	github.com/peterh/liner v1.2.3 // indirect
	github.com/sirupsen/logrus v1.10.2 // indirect
	golang.org/x/arch v0.32.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
