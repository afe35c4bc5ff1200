/* templates.h: the default templates, compiled in from templates/ by the
 * Makefile (build/gen/templates.c), so the binary needs no data files. */
#ifndef TB_TEMPLATES_H
#define TB_TEMPLATES_H

#include <stddef.h>

extern const char tb_template_report_md[];
extern const size_t tb_template_report_md_len;
extern const char tb_template_compare_md[];
extern const size_t tb_template_compare_md_len;
extern const char tb_template_plan_md[];
extern const size_t tb_template_plan_md_len;

#endif
