#ifndef TB_VERSION_H
#define TB_VERSION_H
#define TB_VERSION "0.1.0"
#endif
