/* glibc's malloc tuning and statistics (mallopt, mallinfo2), which Swift's Glibc module
   leaves out. */
#include <malloc.h>
