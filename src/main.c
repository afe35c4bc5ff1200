/* PLACEHOLDER: the CLI owner replaces this. */
#include <stdio.h>
int main(void) { puts("trainbudget: not built yet"); return 0; }
