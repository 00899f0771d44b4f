package debugger

// SetWatchpoint implements watchTarget: a debug register in every thread
// (Stop.InsertWatch).
func (t *liveTarget) SetWatchpoint(addr uint64, size int) error {
	if err := t.live(); err != nil {
		return err
	}
	return t.st.InsertWatch(addr, size)
}

// SetAccessWatchpoint implements watchTarget (Stop.InsertAccessWatch).
func (t *liveTarget) SetAccessWatchpoint(addr uint64, size int) error {
	if err := t.live(); err != nil {
		return err
	}
	return t.st.InsertAccessWatch(addr, size)
}

// ClearWatchpoint implements watchTarget.
func (t *liveTarget) ClearWatchpoint(addr uint64) error {
	if err := t.live(); err != nil {
		return err
	}
	return t.st.RemoveWatch(addr)
}
