/* pdf_write.h: the bytes of a PDF file, for the PDF back end.
 *
 * Objects are numbered first (tb_pdfw_alloc), so they can refer to each
 * other, and written in any order; tb_pdfw_finish adds the cross-reference
 * stream.  Objects other than streams are packed into compressed object
 * streams (PDF 1.5): a tagged report has a thousand small structure
 * elements, which written plainly doubled the file.  Nothing depends on
 * the clock or the machine: the same objects give the same bytes, and the
 * file's /ID is a hash of them. */
#ifndef TB_PDF_WRITE_H
#define TB_PDF_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "trainbudget/buf.h"

/* A stream asked for at one point and written at tb_pdfw_finish. */
typedef struct tb_pdfw_later {
	unsigned num;
	int level;
	size_t job;             /* its number in the helper's queue */
	tb_buf dict, data;
} tb_pdfw_later;

typedef struct tb_pdfw {
	tb_buf out;
	/* by object number: where it was written (0 = not yet); for a packed
	 * object its index in the packed list, with packed[] set */
	size_t *offset;
	unsigned char *packed;
	unsigned nobj, cap;     /* numbers 1..nobj are allocated */
	int level;              /* deflate level for streams, 1-12 */
	/* libdeflate's compressors by level, made on first use */
	struct libdeflate_compressor *zc[13];
	tb_buf pack;            /* the packed objects' bodies, one after another */
	unsigned *pack_num;     /* their numbers, in order */
	size_t *pack_end;       /* where each body ends in pack */
	size_t npack, pack_cap;
	/* Streams written at tb_pdfw_finish (tb_pdfw_stream_later), deflated
	 * meanwhile by whichever of the helper's threads is free (pdf_deflate.h;
	 * NULL: by this one at finish).  Set by the caller after init. */
	struct tb_pdf_helper *helper;
	tb_pdfw_later *later;
	size_t nlater, later_cap;
} tb_pdfw;

void tb_pdfw_init(tb_pdfw *w, int deflate_level);
void tb_pdfw_release(tb_pdfw *w);

/* A new object number. */
unsigned tb_pdfw_alloc(tb_pdfw *w);

/* Writes object `num` with `body` (a dictionary, an array, ...), packed
 * into an object stream. */
void tb_pdfw_obj(tb_pdfw *w, unsigned num, const char *body, size_t len);

/* Writes object `num` as a stream of `len` bytes, deflated when `deflate`;
 * `dict` holds the dictionary's other entries ("/Length1 123") or "". */
void tb_pdfw_stream(tb_pdfw *w, unsigned num, const char *dict,
                    const void *data, size_t len, bool deflate);
/* The same with the bytes already deflated (z, zlen: the zlib format);
 * z NULL writes `data` as it is. */
void tb_pdfw_stream_deflated(tb_pdfw *w, unsigned num, const char *dict, const void *data,
                             size_t len, const unsigned char *z, size_t zlen);
/* Object `num` as a stream deflated at `level`, written at tb_pdfw_finish
 * in the order asked for (dict and data are copied): the bytes do not
 * depend on which thread deflated it, or on whether there is a helper. */
void tb_pdfw_stream_later(tb_pdfw *w, unsigned num, const char *dict, const void *data,
                          size_t len, int level);

/* The object streams, the streams asked for later, the cross-reference
 * stream and the trailer's entries; moves the file into `out` (appends it
 * where out holds bytes already).  sha256_hex, when not NULL, receives
 * the file's SHA-256, its bytes hashed once for the /ID and it.  Every
 * allocated number must have been written or asked for. */
void tb_pdfw_finish(tb_pdfw *w, unsigned root, unsigned info, tb_buf *out,
                    char sha256_hex[65]);

/* A number as PDF writes it: at most 3 decimals, no trailing zeros, "-0"
 * as "0", and within +-1e9 (no page is larger; readers limit reals). */
void tb_pdfw_num(tb_buf *b, double v);

/* An unsigned integer, and a reference "N 0 R", written by hand: the
 * structure tree has thousands (printf was a twentieth of a report). */
void tb_pdfw_uint(tb_buf *b, size_t v);
void tb_pdfw_ref(tb_buf *b, unsigned num);

/* A text string (titles, bookmarks): a literal when printable ASCII, else
 * UTF-16BE with a byte-order mark, in hex.  `s` is valid UTF-8. */
void tb_pdfw_text(tb_buf *b, const char *s, size_t len);

/* A PDF name's characters: letters, digits and '-' kept, others dropped. */
void tb_pdfw_name(tb_buf *b, const char *s);

#endif
