/* Linux timer descriptors (timerfd_create, timerfd_settime), which Swift's Glibc module leaves
   out: a tick at an absolute boot-clock deadline, to the nanosecond. */
#include <sys/timerfd.h>
