#include <stdio.h>
#include <roofline/roofline.h>
int main(void) { printf("roofline %s\n", rf_version()); return 0; }
