#ifndef MOTIOND_CRASH_TRACE_H
#define MOTIOND_CRASH_TRACE_H

/* On a fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP), writes one line naming the signal
   and the faulting address, then the calling thread's return addresses (glibc's backtrace: the
   binary and the offset in it, which `addr2line -f -e` on the unstripped build turns into
   functions), to standard error, and dies of the signal as it would have. A signal that already
   has a handler (a sanitizer's) keeps it. `program` begins the first line. Returns how many
   signals it took over. */
int motiond_crash_trace_install(const char *program);

#endif
