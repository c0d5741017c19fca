//! A dense row-major feature matrix, and the storage of its values: owned, or a range of a
//! buffer shared with other matrices (the three parts of a split, a memory-mapped cache
//! file), so that splitting and caching a large data set need not copy it.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// An n×d matrix of `f64` features stored row-major: entry (i, k) is `data[i * d + k]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Matrix {
    /// Number of rows (samples).
    pub n: usize,
    /// Number of columns (features).
    pub d: usize,
    /// Row-major values, length n·d (read as a `[f64]` slice).
    pub data: Values,
}

impl Matrix {
    /// Builds an n×d matrix from row-major values.
    ///
    /// # Panics
    /// If `data.len() != n * d`.
    pub fn new(n: usize, d: usize, data: Vec<f64>) -> Self {
        assert_eq!(data.len(), n * d, "matrix data length must be n*d");
        Matrix {
            n,
            d,
            data: Values::from(data),
        }
    }

    /// Builds an n×d matrix over rows `first..first + n` of a shared row-major buffer of
    /// width d (no copy).
    ///
    /// # Panics
    /// If the rows are not all in the buffer.
    pub fn shared(n: usize, d: usize, buffer: Arc<Buffer>, first: usize) -> Self {
        let (start, len) = (first * d, n * d);
        assert!(
            start + len <= buffer.len(),
            "rows outside the shared buffer"
        );
        Matrix {
            n,
            d,
            data: Values(Repr::Shared { buffer, start, len }),
        }
    }

    /// Builds a matrix from a slice of equally long rows (d = length of the first row; 0×0 when empty).
    pub fn from_rows(rows: &[Vec<f64>]) -> Self {
        let d = rows.first().map_or(0, |r| r.len());
        let mut data = Vec::with_capacity(rows.len() * d);
        for r in rows {
            assert_eq!(r.len(), d, "all rows must have the same length");
            data.extend_from_slice(r);
        }
        Matrix::new(rows.len(), d, data)
    }

    /// Row i as a slice of length d.
    #[inline]
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.d..(i + 1) * self.d]
    }

    /// Entry (i, k).
    #[inline]
    pub fn get(&self, i: usize, k: usize) -> f64 {
        self.data[i * self.d + k]
    }

    /// The rows at `idx`, in that order, as a new |idx|×d matrix.
    pub fn select_rows(&self, idx: &[usize]) -> Matrix {
        let mut data = Vec::with_capacity(idx.len() * self.d);
        for &i in idx {
            data.extend_from_slice(self.row(i));
        }
        Matrix::new(idx.len(), self.d, data)
    }

    /// Appends the rows of `other` (same d) below this matrix's rows.
    ///
    /// # Panics
    /// If the widths differ.
    pub fn append_rows(&mut self, other: &Matrix) {
        assert_eq!(self.d, other.d, "appended rows must have the same width");
        self.data.extend_from_slice(&other.data);
        self.n += other.n;
    }
}

/// The values of a [`Matrix`]: a `Vec<f64>` of its own, or a range of a [`Buffer`] shared
/// with other matrices. Reads go through `Deref<Target = [f64]>`; a write (`DerefMut`)
/// to a shared range first copies the range into a vector of its own, unless this is the
/// only user of the buffer (then it writes in place: a memory-mapped buffer is a private
/// copy-on-write mapping, so the file never changes). Cloning a shared range is O(1).
#[derive(Clone)]
pub struct Values(Repr);

#[derive(Clone)]
enum Repr {
    Owned(Vec<f64>),
    Shared {
        buffer: Arc<Buffer>,
        start: usize,
        len: usize,
    },
}

/// A buffer of `f64` values that several matrices can share: a vector, or the payload of
/// a memory-mapped cache file (a private copy-on-write mapping; see
/// [`super::cache`]).
pub struct Buffer(BufferRepr);

enum BufferRepr {
    Heap(Vec<f64>),
    Mapped {
        map: memmap2::MmapMut,
        /// Byte offset of the first value in the mapping (a multiple of 8).
        offset: usize,
        /// Number of values.
        len: usize,
    },
}

impl Buffer {
    /// A buffer holding `values`.
    pub fn heap(values: Vec<f64>) -> Buffer {
        Buffer(BufferRepr::Heap(values))
    }

    /// A buffer over `len` little-endian `f64` values at byte `offset` of a private
    /// (copy-on-write) mapping.
    ///
    /// # Panics
    /// If the values do not fit in the mapping, the offset or the mapping's address is not
    /// 8-byte aligned, or the platform is big-endian.
    pub(crate) fn mapped(map: memmap2::MmapMut, offset: usize, len: usize) -> Buffer {
        assert!(
            cfg!(target_endian = "little"),
            "cache files are little-endian"
        );
        assert!(offset % 8 == 0 && (map.as_ptr() as usize) % 8 == 0);
        assert!(offset + len * 8 <= map.len(), "values outside the mapping");
        Buffer(BufferRepr::Mapped { map, offset, len })
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// Whether the buffer holds no value.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values.
    pub fn as_slice(&self) -> &[f64] {
        match &self.0 {
            BufferRepr::Heap(v) => v,
            BufferRepr::Mapped { map, offset, len } => {
                // SAFETY: `mapped` checked that the range lies in the mapping and is 8-byte
                // aligned; every bit pattern is a valid f64; the mapping lives as long as
                // `self` and is private, so no other process changes it.
                unsafe { std::slice::from_raw_parts(map.as_ptr().add(*offset).cast(), *len) }
            }
        }
    }

    /// The values, writable (a mapped buffer copies each page on its first write).
    pub fn as_mut_slice(&mut self) -> &mut [f64] {
        match &mut self.0 {
            BufferRepr::Heap(v) => v,
            BufferRepr::Mapped { map, offset, len } => {
                // SAFETY: as in `as_slice`, with exclusive access through `&mut self`.
                unsafe {
                    std::slice::from_raw_parts_mut(map.as_mut_ptr().add(*offset).cast(), *len)
                }
            }
        }
    }
}

impl Values {
    /// Appends `values`, making the values a vector of their own first.
    pub fn extend_from_slice(&mut self, values: &[f64]) {
        self.make_owned().extend_from_slice(values);
    }

    /// The values as a vector (no copy when they are a vector of their own, or the whole
    /// heap buffer of which this is the only user).
    pub fn into_vec(mut self) -> Vec<f64> {
        std::mem::take(self.make_owned())
    }

    /// The values as a buffer of their own: no copy when they are a vector of their own or
    /// the whole of a buffer of which this is the only user (a mapped buffer stays mapped).
    pub fn into_buffer(self) -> Buffer {
        match self.0 {
            Repr::Owned(v) => Buffer::heap(v),
            Repr::Shared { buffer, start, len } => {
                if start == 0 && len == buffer.len() {
                    match Arc::try_unwrap(buffer) {
                        Ok(b) => return b,
                        Err(shared) => return Buffer::heap(shared.as_slice()[..len].to_vec()),
                    }
                }
                Buffer::heap(buffer.as_slice()[start..start + len].to_vec())
            }
        }
    }

    /// Whether the values are a range of a buffer shared with other matrices (or mapped
    /// from a file), rather than a vector of their own.
    pub fn is_shared(&self) -> bool {
        matches!(self.0, Repr::Shared { .. })
    }

    /// The values as a vector of their own, converting a shared range first.
    fn make_owned(&mut self) -> &mut Vec<f64> {
        if let Repr::Shared { buffer, start, len } = &mut self.0 {
            let whole_heap = *start == 0
                && matches!(Arc::get_mut(buffer), Some(Buffer(BufferRepr::Heap(v))) if v.len() == *len);
            let values = if whole_heap {
                match Arc::get_mut(buffer) {
                    Some(Buffer(BufferRepr::Heap(v))) => std::mem::take(v),
                    _ => unreachable!("checked above"),
                }
            } else {
                buffer.as_slice()[*start..*start + *len].to_vec()
            };
            self.0 = Repr::Owned(values);
        }
        match &mut self.0 {
            Repr::Owned(v) => v,
            Repr::Shared { .. } => unreachable!("converted above"),
        }
    }
}

impl Deref for Values {
    type Target = [f64];

    fn deref(&self) -> &[f64] {
        match &self.0 {
            Repr::Owned(v) => v,
            Repr::Shared { buffer, start, len } => &buffer.as_slice()[*start..*start + *len],
        }
    }
}

impl DerefMut for Values {
    fn deref_mut(&mut self) -> &mut [f64] {
        if let Repr::Shared { buffer, .. } = &mut self.0 {
            if Arc::get_mut(buffer).is_none() {
                self.make_owned();
            }
        }
        match &mut self.0 {
            Repr::Owned(v) => v,
            Repr::Shared { buffer, start, len } => {
                let buffer = Arc::get_mut(buffer).expect("only user, checked above");
                &mut buffer.as_mut_slice()[*start..*start + *len]
            }
        }
    }
}

impl Default for Values {
    fn default() -> Self {
        Values(Repr::Owned(Vec::new()))
    }
}

impl From<Vec<f64>> for Values {
    fn from(v: Vec<f64>) -> Self {
        Values(Repr::Owned(v))
    }
}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.0 {
            BufferRepr::Heap(_) => "heap",
            BufferRepr::Mapped { .. } => "mapped",
        };
        write!(f, "Buffer({kind}, {} values)", self.len())
    }
}

impl std::fmt::Debug for Values {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for Values {
    fn eq(&self, other: &Values) -> bool {
        self[..] == other[..]
    }
}

impl PartialEq<Vec<f64>> for Values {
    fn eq(&self, other: &Vec<f64>) -> bool {
        self[..] == other[..]
    }
}

impl PartialEq<Values> for Vec<f64> {
    fn eq(&self, other: &Values) -> bool {
        self[..] == other[..]
    }
}

impl PartialEq<[f64]> for Values {
    fn eq(&self, other: &[f64]) -> bool {
        self[..] == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_rows_read_the_buffer_and_copy_on_write() {
        let buffer = Arc::new(Buffer::heap((0..12).map(f64::from).collect()));
        let a = Matrix::shared(2, 3, buffer.clone(), 0);
        let mut b = Matrix::shared(2, 3, buffer.clone(), 2);
        assert_eq!(a.row(1), &[3.0, 4.0, 5.0]);
        assert_eq!(b.get(0, 0), 6.0);
        assert!(b.data.is_shared());
        // Another user holds the buffer: writing copies b's rows, a and the buffer keep theirs.
        b.data[0] = -1.0;
        assert!(!b.data.is_shared());
        assert_eq!(b.data, vec![-1.0, 7.0, 8.0, 9.0, 10.0, 11.0]);
        assert_eq!(buffer.as_slice()[6], 6.0);
        // The only user writes in place.
        drop(buffer);
        let mut a = a;
        drop(b);
        a.data[1] = 42.0;
        assert!(a.data.is_shared());
        assert_eq!(a.data, vec![0.0, 42.0, 2.0, 3.0, 4.0, 5.0]);
    }

    #[test]
    fn appending_makes_the_values_owned() {
        let buffer = Arc::new(Buffer::heap(vec![1.0, 2.0, 3.0, 4.0]));
        let mut m = Matrix::shared(1, 2, buffer, 1);
        m.append_rows(&Matrix::new(1, 2, vec![5.0, 6.0]));
        assert_eq!(
            (m.n, m.data.clone().into_vec()),
            (2, vec![3.0, 4.0, 5.0, 6.0])
        );
        // The whole heap buffer of a single user becomes the vector without a copy.
        let whole = Matrix::shared(2, 2, Arc::new(Buffer::heap(vec![1.0, 2.0, 3.0, 4.0])), 0);
        assert_eq!(whole.data.into_vec(), vec![1.0, 2.0, 3.0, 4.0]);
    }
}

/// Asks the kernel to back `v`'s allocation with transparent huge pages (2 MiB) where it
/// can, before its pages are first written. Advice only: the values and their bits are
/// untouched, and nothing happens off Linux, for allocations under 4 MiB, or where THP
/// is disabled. Large matrices are copied, permuted and written to the cache in full:
/// with 4 KiB pages, a 1.6 GB matrix costs some 400,000 page-table walks per pass, which
/// on a virtual machine (nested paging) made writing it out several times slower.
pub(crate) fn advise_huge_pages(v: &Vec<f64>) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let bytes = v.capacity() * std::mem::size_of::<f64>();
        if bytes < 4 << 20 {
            return;
        }
        let start = v.as_ptr() as usize;
        let (lo, hi) = (start.div_ceil(PAGE) * PAGE, (start + bytes) / PAGE * PAGE);
        if hi > lo {
            // SAFETY: [lo, hi) lies inside `v`'s allocation, whole pages; MADV_HUGEPAGE
            // changes only how the kernel backs them, never their contents.
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}
