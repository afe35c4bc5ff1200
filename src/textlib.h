/* textlib.h: FriBidi, HarfBuzz and ICU's break iterators, loaded the
 * first time a document has text that needs them, or beforehand on a
 * helper thread when the template has such text (pdf_prefetch.c).
 *
 * Most reports are Latin text, which the PDF draws without them, and
 * most commands draw no PDF at all: linking the three would map eleven
 * shared libraries (HarfBuzz brings GLib, FreeType, Graphite and their
 * own) into every process, 1.3-1.8 ms more for each `estimate`.  So they
 * are opened with dlopen when complex text first appears, once a process.
 * Their headers still give every type and signature.  Internal to the
 * PDF back end.  ICU (line breaks) and hb-subset (fonts with PostScript
 * outlines) are opened apart, each when first needed.  ICU renames its
 * functions per release (ubrk_open is ubrk_open_72): the names and the
 * library's soname come from the headers built against, which Debian's
 * libicu-dev keeps in step with the libicu it installs. */
#ifndef TB_TEXTLIB_H
#define TB_TEXTLIB_H

#include <stddef.h>
#include <fribidi.h>
#include <hb.h>
#include <hb-subset.h>
#include <unicode/ubrk.h>
#include <unicode/uclean.h>
#include <unicode/uvernum.h>

#define TB_TEXTLIB_FRIBIDI(X) \
	X(fribidi_get_bidi_type) X(fribidi_get_bidi_types) X(fribidi_get_bracket_types) \
	X(fribidi_get_par_embedding_levels_ex) X(fribidi_reorder_line)
#define TB_TEXTLIB_HARFBUZZ(X) \
	X(hb_blob_create) X(hb_blob_destroy) X(hb_face_create) X(hb_face_destroy) \
	X(hb_face_get_upem) X(hb_font_create) X(hb_font_destroy) X(hb_font_get_face) \
	X(hb_font_set_scale) X(hb_font_get_glyph_h_advance) X(hb_buffer_create) \
	X(hb_buffer_destroy) X(hb_buffer_clear_contents) X(hb_buffer_set_direction) \
	X(hb_buffer_set_script) X(hb_buffer_set_language) X(hb_buffer_set_flags) \
	X(hb_buffer_add_codepoints) X(hb_buffer_get_glyph_infos) \
	X(hb_buffer_get_glyph_positions) X(hb_language_from_string) X(hb_shape) \
	X(hb_unicode_funcs_get_default) X(hb_unicode_general_category) X(hb_unicode_script) \
	X(hb_unicode_combining_class) X(hb_set_add) X(hb_map_get) X(hb_face_reference_table) \
	X(hb_blob_get_data)
#define TB_TEXTLIB_SUBSET(X) \
	X(hb_subset_input_create_or_fail) X(hb_subset_input_destroy) X(hb_subset_input_set) \
	X(hb_subset_plan_create_or_fail) X(hb_subset_plan_destroy) \
	X(hb_subset_plan_execute_or_fail) X(hb_subset_plan_old_to_new_glyph_mapping)
#define TB_TEXTLIB_ICU(X) \
	X(ubrk_open) X(ubrk_setText) X(ubrk_first) X(ubrk_next) X(ubrk_close) X(u_cleanup)
#define TB_TEXTLIB_FIELD(name) __typeof__(name) *name;
typedef struct tb_textlib {
	TB_TEXTLIB_FRIBIDI(TB_TEXTLIB_FIELD)
	TB_TEXTLIB_HARFBUZZ(TB_TEXTLIB_FIELD)
} tb_textlib;
typedef struct tb_textlib_subset {
	TB_TEXTLIB_SUBSET(TB_TEXTLIB_FIELD)
} tb_textlib_subset;
typedef struct tb_textlib_icu {
	TB_TEXTLIB_ICU(TB_TEXTLIB_FIELD)
} tb_textlib_icu;
#undef TB_TEXTLIB_FIELD

/* FriBidi and HarfBuzz, opened on the first call (thread-safe); NULL when
 * one cannot be, with a sentence saying which and why (static storage). */
const tb_textlib *tb_textlib_get(const char **why);

/* hb-subset, opened on the first call, only when a document embeds a
 * font with PostScript outlines (thread-safe); NULL when it cannot be,
 * with a sentence in *why (static storage). */
const tb_textlib_subset *tb_textlib_subsetter(const char **why);

/* ICU's break iterators (libicuuc), opened on the first call
 * (thread-safe); NULL when they cannot be. */
const tb_textlib_icu *tb_textlib_breaker(void);

#endif
