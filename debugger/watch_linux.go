package debugger

// watchTarget is a Target with hardware watchpoints: a debug register
// that stops the process after an instruction writes to [addr, addr+size).
// liveTarget sets them through its proc.Stop (proc/watch_seize_linux.go,
// with the host's registers in proc/watchregs_*.go).
type watchTarget interface {
	SetWatchpoint(addr uint64, size int) error
	// SetAccessWatchpoint watches loads too (rwatch, awatch).
	SetAccessWatchpoint(addr uint64, size int) error
	ClearWatchpoint(addr uint64) error
}
