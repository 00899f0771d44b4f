package frames

// moduleData is what is loaded from a module's ELF file on first use: its
// SFrame section, CFI and symbols.
type moduleData struct{}
