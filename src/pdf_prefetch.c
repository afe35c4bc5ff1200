/* pdf_prefetch.c: the text libraries a PDF will need, opened on another
 * core while the report is still being computed.
 *
 * Opening FriBidi and HarfBuzz maps a dozen shared libraries (1.9 ms),
 * and ICU's first line break loads its rules, and for Thai its
 * dictionary.  The template says early whether the PDF will need them,
 * so a helper thread opens them beside the layout search and the report
 * model; the PDF back end's first call then finds them open, or waits
 * for the helper (pthread_once; ICU's own locks).  Nothing drawn depends
 * on which thread opened them, so the output is the same bytes either
 * way.  With the default question this hides little (its answer takes
 * about 2 ms); behind a larger search it hides the loading whole. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "pdf_break.h"
#include "pdf_text.h"
#include "textlib.h"
#include "trainbudget/render.h"
#include "utf8.h"
#include "thread.h"

static pthread_t S_thread;
static bool S_started;

/* What the template needs, in the order the layout needs it: the shaping
 * libraries (the first complex paragraph), then ICU's breaker and its
 * Thai dictionary.  One thread: dlopen holds the loader's lock while it
 * maps a library, so a second helper (or the main thread creating it)
 * would only wait for the first. */
enum { S_SHAPING = 1, S_BREAKS = 2, S_THAI = 4 };

static void *S_open(void *what)
{
	unsigned w = (unsigned)(uintptr_t)what;
	if (w & S_SHAPING)
		(void)tb_textlib_get(NULL);
	if (w & S_BREAKS)
		tb_pdf_breaks_warm(w & S_THAI);
	return NULL;
}

void tb_render_pdf_prefetch(const char *text, size_t len)
{
	if (S_started || !text)
		return;
	bool complex = false, cjk = false, thai = false;
	const unsigned char *s = (const unsigned char *)text;
	for (size_t i = 0; i < len && !thai;) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		uint32_t cp;
		size_t n = tb_utf8_seq(s + i, len - i, &cp);
		if (!n) {
			i++;
			continue;
		}
		i += n;
		complex = complex || !tb_pdf_cp_simple(cp);
		cjk = cjk || cp >= 0x3000;
		thai = cp >= 0x0E00 && cp <= 0x0E7F;
	}
	unsigned what = (complex ? S_SHAPING : 0) | (complex || cjk ? S_BREAKS : 0) |
	                (thai ? S_THAI : 0);
	if (what)
		S_started = tb_thread_start(&S_thread, S_open, (void *)(uintptr_t)what);
}

void tb_render_pdf_prefetch_wait(void)
{
	if (S_started)
		pthread_join(S_thread, NULL);
	S_started = false;
}
