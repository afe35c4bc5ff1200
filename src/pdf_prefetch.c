/* pdf_prefetch.c: the text libraries a PDF will need, opened on another
 * core while the report is still being computed.
 *
 * Opening FriBidi and HarfBuzz maps a dozen shared libraries (1.9 ms),
 * and ICU's first line break loads its rules, and for Thai its
 * dictionary.  The template says early whether the PDF will need them,
 * so two helper threads open them beside the layout search and the
 * report model (one the shaping libraries, one the breaker); the PDF
 * back end's first call then finds them open, or waits for the helper
 * (pthread_once, a mutex).  Nothing drawn depends on which
 * thread opened them, so the output is the same bytes either way. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "pdf_break.h"
#include "pdf_text.h"
#include "textlib.h"
#include "trainbudget/render.h"
#include "utf8.h"

static pthread_t S_threads[2];
static size_t S_nthreads;

static void *S_open_shaping(void *unused)
{
	(void)unused;
	(void)tb_textlib_get(NULL);
	return NULL;
}

/* Breaks a sample word: ICU's iterators open, and for Thai its
 * dictionary loads. */
static void *S_open_breaks(void *sample)
{
	const char *w = sample;
	unsigned char out[32];
	tb_pdf_breaks(w, strlen(w), out);
	return NULL;
}

/* phasa thai; zhongwen */
static const char S_thai_word[] = "\xE0\xB8\xA0\xE0\xB8\xB2\xE0\xB8\xA9\xE0\xB8\xB2"
                                  "\xE0\xB9\x84\xE0\xB8\x97\xE0\xB8\xA2";
static const char S_other_word[] = "\xE4\xB8\xAD\xE6\x96\x87";

void tb_render_pdf_prefetch(const char *text, size_t len)
{
	if (S_nthreads || !text)
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
	if ((complex || cjk) &&
	    pthread_create(&S_threads[S_nthreads], NULL, S_open_breaks,
	                   (void *)(thai ? S_thai_word : S_other_word)) == 0)
		S_nthreads++;
	if (complex && pthread_create(&S_threads[S_nthreads], NULL, S_open_shaping, NULL) == 0)
		S_nthreads++;
}

void tb_render_pdf_prefetch_wait(void)
{
	for (size_t i = 0; i < S_nthreads; i++)
		pthread_join(S_threads[i], NULL);
	S_nthreads = 0;
}
