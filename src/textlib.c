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
	if (!hb)
		return;
	/* POSIX: a function pointer is filled through its object pointer */
#define S_SYM(lib, name) \
	if (!(*(void **)&S_lib.name = dlsym(lib, #name))) { \
		snprintf(S_why, sizeof S_why, "cannot find %s in its library; expected a " \
		         "FriBidi 1.0 and HarfBuzz 2.6 or later", #name); \
		return; \
	}
#define S_FB(name) S_SYM(fb, name)
#define S_HB(name) S_SYM(hb, name)
	TB_TEXTLIB_FRIBIDI(S_FB)
	TB_TEXTLIB_HARFBUZZ(S_HB)
#undef S_FB
#undef S_HB
#undef S_SYM
	S_ok = &S_lib;
}

static tb_textlib_subset S_sub;
static const tb_textlib_subset *S_sub_ok;
static char S_sub_why[256];
static pthread_once_t S_sub_once = PTHREAD_ONCE_INIT;

static void S_load_subset(void)
{
	const char *so = "libharfbuzz-subset.so.0";
	void *h = dlopen(so, RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(S_sub_why, sizeof S_sub_why, "cannot load %s (%s); expected Debian's "
		         "libharfbuzz-subset0 installed", so, e ? e : "not found");
		return;
	}
#define S_SUB(name) \
	if (!(*(void **)&S_sub.name = dlsym(h, #name))) { \
		snprintf(S_sub_why, sizeof S_sub_why, "cannot find %s in %s; expected " \
		         "HarfBuzz 4.0 or later", #name, so); \
		return; \
	}
	TB_TEXTLIB_SUBSET(S_SUB)
#undef S_SUB
	S_sub_ok = &S_sub;
}

const tb_textlib_subset *tb_textlib_subsetter(const char **why)
{
	pthread_once(&S_sub_once, S_load_subset);
	if (why)
		*why = S_sub_ok ? NULL : S_sub_why;
	return S_sub_ok;
}

static tb_textlib_icu S_icu;
static const tb_textlib_icu *S_icu_ok;
static pthread_once_t S_icu_once = PTHREAD_ONCE_INIT;

/* names as the headers rename them: ubrk_open -> "ubrk_open_72" */
#define S_STR(x) S_STR_(x)
#define S_STR_(x) #x

static void S_load_icu(void)
{
	void *h = dlopen("libicuuc.so." U_ICU_VERSION_SHORT, RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		return;
#define S_ICU(name) \
	if (!(*(void **)&S_icu.name = dlsym(h, S_STR(name)))) \
		return;
	TB_TEXTLIB_ICU(S_ICU)
#undef S_ICU
	S_icu_ok = &S_icu;
}

const tb_textlib_icu *tb_textlib_breaker(void)
{
	pthread_once(&S_icu_once, S_load_icu);
	return S_icu_ok;
}

const tb_textlib *tb_textlib_get(const char **why)
{
	pthread_once(&S_once, S_load);
	if (why)
		*why = S_ok ? NULL : S_why;
	return S_ok;
}
