package code

import "strings"

// NoReturnNames are C library functions declared noreturn (glibc's
// <stdlib.h>, <unistd.h>, <setjmp.h>, <assert.h>, <err.h>, <pthread.h>,
// the fortify and stack-protector failure paths) and the C++/unwinder
// functions that do not return (__cxa_throw, _Unwind_Resume), and glibc's
// private noreturn functions (_dl_fatal_printf). A caller
// that names a call's target (through the PLT or the symbol table) can
// build Options.NoReturn from it; objtool keeps the same kind of list
// (global_noreturns in tools/objtool/check.c) because the noreturn
// attribute is not recorded in ELF.
var NoReturnNames = map[string]bool{
	"abort": true, "exit": true, "_exit": true, "_Exit": true, "quick_exit": true,
	"__assert_fail": true, "__assert_perror_fail": true, "__assert": true,
	"__stack_chk_fail": true, "__stack_chk_fail_local": true, "__fortify_fail": true, "__chk_fail": true,
	"__libc_fatal": true, "longjmp": true, "_longjmp": true, "siglongjmp": true, "__longjmp_chk": true,
	"pthread_exit": true, "thrd_exit": true, "err": true, "errx": true, "verr": true, "verrx": true,
	"__cxa_throw": true, "__cxa_rethrow": true, "__cxa_bad_cast": true, "__cxa_bad_typeid": true,
	"__cxa_call_unexpected": true, "__cxa_pure_virtual": true, "_Unwind_Resume": true,
	"__ubsan_handle_builtin_unreachable": true, "__builtin_unreachable": true,
	"_ZSt9terminatev": true, "__cxa_call_terminate": true,
	// glibc's own (GLIBC_PRIVATE) noreturn entry points.
	"_dl_fatal_printf": true, "_dl_signal_error": true, "_dl_signal_exception": true,
	"__libc_longjmp": true, "____longjmp_chk": true, "__libc_siglongjmp": true,
}

// NoReturn reports whether the function a symbol names is in
// NoReturnNames: the name without its symbol version or "@plt"
// ("abort@GLIBC_2.2.5", "exit@plt") and without glibc's internal-alias
// prefix ("__GI___fortify_fail" is __fortify_fail, "__GI_abort" abort).
func NoReturn(name string) bool {
	if i := strings.IndexByte(name, '@'); i > 0 {
		name = name[:i]
	}
	return NoReturnNames[name] || NoReturnNames[strings.TrimPrefix(name, "__GI_")]
}
