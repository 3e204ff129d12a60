//! Large tables read at random, in huge pages where the system gives them.
//!
//! The heuristic's memo (16 MB) and a long search's node table (tens of MB) are read at
//! random addresses, hundreds of times a node.  In 4 KB pages each of those reads needs
//! its own address translation, beyond what the processor's TLB holds, and under a
//! hypervisor a translation missed is a walk of two page tables: a search's prefetches
//! of memo slots stalled on those walks (a tenth of the expert's CPU, `perf record`).
//! In 2 MB pages the same tables take a few dozen translations.  Linux gives huge pages
//! to a region asked for with `madvise` when its transparent huge pages are `madvise`
//! or `always`; elsewhere, and whenever the system refuses, the pages stay small and
//! nothing else changes.

/// The huge page size asked for.
const HUGE: usize = 2 << 20;

/// Ask for huge pages under the whole 2 MB pages of `v`'s allocation (its capacity),
/// before they are first written: a page faulted in small stays small.  Only a hint.
pub fn advise_huge<T>(v: &Vec<T>) {
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if bytes < HUGE {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let start = v.as_ptr() as usize;
        let (a, b) = (
            (start + HUGE - 1) & !(HUGE - 1),
            (start + bytes) & !(HUGE - 1),
        );
        if b > a {
            // SAFETY: the range lies inside `v`'s live allocation, and MADV_HUGEPAGE
            // changes how its pages are backed, never their contents.
            unsafe { libc::madvise(a as *mut libc::c_void, b - a, libc::MADV_HUGEPAGE) };
        }
    }
}
