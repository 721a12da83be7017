/* The frame address of this function: just below its caller's frame, on the thread's real
   stack. A Swift local's address is not that under AddressSanitizer, which may keep locals on a
   fake stack elsewhere in memory (ThreadStack). */
static inline void *motiond_frame_address(void) { return __builtin_frame_address(0); }
