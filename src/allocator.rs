//! How the process's memory allocator is set up, and why.
//!
//! glibc serves a large allocation (128 KiB and over, at first) with its own
//! mapping and returns it to the system when freed, but each time one is
//! freed it raises that threshold to the freed size, up to 32 MiB. The
//! console frees large buffers all day: every period's answer of a 20,000
//! node list (4 MB of JSON, then 4 MB of decoded rows). After the first
//! few, they were carved out of the heap instead, and the gaps between what
//! is still alive kept those pages resident. A fixed threshold of 1 MiB
//! keeps the lists' buffers mapped and returned, and leaves the smaller ones
//! a render makes (a page's HTML, a sort's keys) on the heap: at 128 KiB the
//! mappings of every render cost the first node page 286 ms instead of
//! 159 at 20,000 nodes. Measured in BENCHMARKS.md (2026-12-03).

/// Applies the settings above; call it before the runtime starts threads.
#[allow(unsafe_code)]
pub fn tune() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        const LARGE: libc::c_int = 1024 * 1024;
        // SAFETY: mallopt only sets a parameter of glibc's allocator, and is
        // called before any other thread exists.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, LARGE);
        }
    }
}
