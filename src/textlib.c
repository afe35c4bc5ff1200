#include "textlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static tb_textlib S_lib;
static const tb_textlib *S_ok;
static char S_why[256];
static pthread_once_t S_once = PTHREAD_ONCE_INIT;

/* Opens `soname`; NULL with S_why set. */
static void *S_open(const char *soname, const char *package)
{
	void *h = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(S_why, sizeof S_why, "cannot load %s (%s); expected Debian's %s installed",
		         soname, e ? e : "not found", package);
	}
	return h;
}

static void S_load(void)
{
	void *fb = S_open("libfribidi.so.0", "libfribidi0");
	void *hb = fb ? S_open("libharfbuzz.so.0", "libharfbuzz0b") : NULL;
	void *th = hb ? S_open("libthai.so.0", "libthai0") : NULL;
	if (!th)
		return;
	/* POSIX: a function pointer is filled through its object pointer */
#define S_SYM(lib, name) \
	if (!(*(void **)&S_lib.name = dlsym(lib, #name))) { \
		snprintf(S_why, sizeof S_why, "cannot find %s in its library; expected a " \
		         "FriBidi 1.0, HarfBuzz 2.6 and libthai 0.1.25 or later", #name); \
		return; \
	}
#define S_FB(name) S_SYM(fb, name)
#define S_HB(name) S_SYM(hb, name)
#define S_TH(name) S_SYM(th, name)
	TB_TEXTLIB_FRIBIDI(S_FB)
	TB_TEXTLIB_HARFBUZZ(S_HB)
	TB_TEXTLIB_THAI(S_TH)
#undef S_FB
#undef S_HB
#undef S_TH
#undef S_SYM
	S_ok = &S_lib;
}

const tb_textlib *tb_textlib_get(const char **why)
{
	pthread_once(&S_once, S_load);
	if (why)
		*why = S_ok ? NULL : S_why;
	return S_ok;
}
