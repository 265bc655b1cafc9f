//! The ring's provided buffers: one pool of equal buffers that the kernel
//! picks from for every multishot receive of the worker, and the shared ring
//! of entries through which each buffer goes back once its bytes are copied
//! out (no system call per buffer; io_uring_register_buf_ring(3)).

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::io;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU16, Ordering};

use io_uring::IoUring;
use io_uring::types::BufRingEntry;

/// The buffer group every receive of the worker picks from.
pub const GROUP: u16 = 0;

/// The entries the kernel reads and the buffers it fills. Both are raw
/// allocations: the kernel writes the buffers behind Rust's back, so no
/// reference to a buffer exists but the one handed out for a buffer the
/// kernel gave us and does not touch until it is recycled.
pub struct BufRing {
    entries: NonNull<BufRingEntry>,
    entries_layout: Layout,
    pool: NonNull<u8>,
    pool_layout: Layout,
    count: u16,
    size: usize,
    tail: u16,
}

impl BufRing {
    /// `count` (a power of two) buffers of `size` bytes, registered with
    /// `ring` as [`GROUP`].
    pub fn new(ring: &IoUring, count: u16, size: usize) -> io::Result<BufRing> {
        assert!(count.is_power_of_two() && size > 0);
        let page = 4096;
        let entries_layout =
            Layout::from_size_align(usize::from(count) * size_of::<BufRingEntry>(), page)
                .map_err(io::Error::other)?;
        let pool_layout =
            Layout::from_size_align(usize::from(count) * size, page).map_err(io::Error::other)?;
        // SAFETY: both layouts have a non-zero size.
        let (entries, pool) = unsafe { (alloc_zeroed(entries_layout), alloc_zeroed(pool_layout)) };
        let (Some(entries), Some(pool)) = (NonNull::new(entries.cast()), NonNull::new(pool)) else {
            return Err(io::ErrorKind::OutOfMemory.into());
        };
        let mut bufs = BufRing {
            entries,
            entries_layout,
            pool,
            pool_layout,
            count,
            size,
            tail: 0,
        };
        for bid in 0..count {
            bufs.recycle(bid);
        }
        bufs.publish();
        // SAFETY: the entries are page-aligned, `count` long, and live as long
        // as the ring (the worker drops its ring before its buffers).
        unsafe {
            ring.submitter().register_buf_ring_with_flags(
                bufs.entries.as_ptr() as u64,
                count,
                GROUP,
                0,
            )?;
        }
        Ok(bufs)
    }

    /// The first `len` bytes of buffer `bid`, which a completion just gave.
    pub fn get(&self, bid: u16, len: usize) -> &[u8] {
        let bid = usize::from(bid % self.count);
        // SAFETY: the buffer lies inside the pool; the kernel filled it and
        // leaves it alone until `recycle` hands it back.
        unsafe {
            std::slice::from_raw_parts(self.pool.as_ptr().add(bid * self.size), len.min(self.size))
        }
    }

    /// Hands buffer `bid` back to the kernel (visible after [`publish`](Self::publish)).
    pub fn recycle(&mut self, bid: u16) {
        let bid = bid % self.count;
        let slot = usize::from(self.tail & (self.count - 1));
        // SAFETY: `slot` < count; the kernel reads only entries below the
        // published tail, and this one is past it.
        unsafe {
            let entry = &mut *self.entries.as_ptr().add(slot);
            entry.set_addr(self.pool.as_ptr().add(usize::from(bid) * self.size) as u64);
            entry.set_len(self.size as u32);
            entry.set_bid(bid);
        }
        self.tail = self.tail.wrapping_add(1);
    }

    /// Makes every recycled buffer visible to the kernel.
    pub fn publish(&self) {
        // SAFETY: the tail is a u16 inside the first entry, shared with the
        // kernel, which reads it atomically.
        unsafe {
            let tail = BufRingEntry::tail(self.entries.as_ptr()) as *const AtomicU16;
            (*tail).store(self.tail, Ordering::Release);
        }
    }
}

impl Drop for BufRing {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with these layouts.
        unsafe {
            dealloc(self.entries.as_ptr().cast(), self.entries_layout);
            dealloc(self.pool.as_ptr(), self.pool_layout);
        }
    }
}
