//! [`CpuSet`]: a set of CPU (PU) ids of any width.
//!
//! Invariants:
//! - the set stores the 64-bit words `base..base + words.len()` of its
//!   bitmap, bit `i % 64` of word `i / 64` for CPU `i`; words outside that
//!   window are zero;
//! - the window is tight: `words` neither starts nor ends with a zero word,
//!   and the empty set has `base == 0` and no word. So two equal sets have
//!   equal representations and `==`/`Hash` can be derived.
//!
//! A set costs one word per 64 ids between its smallest and largest member,
//! not from 0: a machine's domains (each a run of CPU numbers) together take
//! memory linear in the number of CPUs. Operations between two sets work on
//! the words where the sets overlap (`intersection`, `is_subset`,
//! `intersects`) or span (`union`, `difference`).
//!
//! Text formats are the two Linux uses in sysfs and procfs:
//! - cpulists: `0-3,8,10-11` (empty text is the empty set);
//! - hex masks: 32-bit hex words separated by commas, most significant first,
//!   e.g. `00000000,0000000f`; any width (1024-bit masks are common).
//!
//! Both parsers accept a trailing newline and trailing NUL bytes (some kernels
//! write `"...\n\0"`, seen on the Kunpeng 920 snapshot).

use std::fmt;
use std::str::FromStr;

/// The largest CPU id accepted by the parsers. Linux's `NR_CPUS` tops out at
/// 8192; we allow far more but refuse absurd ids so that a corrupt file can
/// not make us allocate gigabytes.
pub(crate) const MAX_CPU_ID: usize = 1 << 20;

/// A set of CPU ids (Linux logical CPU numbers, hwloc "PU OS indexes").
///
/// ```
/// use locus::CpuSet;
/// let s: CpuSet = "0-3,8,10-11".parse().unwrap();
/// assert_eq!(s.len(), 7);
/// assert!(s.contains(10));
/// assert_eq!(s.to_string(), "0-3,8,10-11");
/// assert_eq!(CpuSet::from_hex_mask("00000000,00000f00").unwrap().to_string(), "8-11");
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct CpuSet {
    /// Index of the first stored word (0 for the empty set).
    base: usize,
    /// Words `base..`, first and last non-zero.
    words: Vec<u64>,
}

/// A cpulist or hex mask that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseCpuSetError {
    text: String,
    reason: &'static str,
}

impl ParseCpuSetError {
    fn new(text: &str, reason: &'static str) -> Self {
        let mut text = text.to_string();
        if text.len() > 80 {
            let mut cut = 77;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push_str("...");
        }
        ParseCpuSetError { text, reason }
    }
}

impl fmt::Display for ParseCpuSetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid CPU set {:?}: {}", self.text, self.reason)
    }
}

impl std::error::Error for ParseCpuSetError {}

/// Strips what kernels append to sysfs values: whitespace, newlines, NULs.
pub(crate) fn trim_value(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || c == '\0')
}

impl CpuSet {
    /// The empty set.
    pub const fn new() -> Self {
        CpuSet {
            base: 0,
            words: Vec::new(),
        }
    }

    /// The set `{0, 1, ..., n-1}`.
    pub fn first_n(n: usize) -> Self {
        let mut s = CpuSet::new();
        s.insert_range(0, n);
        s
    }

    /// Builds a set from ids.
    pub fn from_ids<I: IntoIterator<Item = usize>>(ids: I) -> Self {
        // Collected first, so the window is allocated once whatever the order.
        let ids: Vec<usize> = ids.into_iter().collect();
        let (Some(&lo), Some(&hi)) = (ids.iter().min(), ids.iter().max()) else {
            return CpuSet::new();
        };
        let base = lo / 64;
        let mut words = vec![0u64; hi / 64 - base + 1];
        for id in ids {
            words[id / 64 - base] |= 1 << (id % 64);
        }
        CpuSet { base, words }
    }

    /// Parses a Linux cpulist such as `0-3,8,10-11` (also `0-7:2` strides are
    /// not used by sysfs and are rejected). Empty text is the empty set.
    pub fn from_cpulist(text: &str) -> Result<Self, ParseCpuSetError> {
        let t = trim_value(text);
        let mut s = CpuSet::new();
        if t.is_empty() {
            return Ok(s);
        }
        let parse_id = |p: &str| -> Result<usize, ParseCpuSetError> {
            let p = p.trim();
            let id: usize = p
                .parse()
                .map_err(|_| ParseCpuSetError::new(text, "expected a CPU number"))?;
            if id > MAX_CPU_ID {
                return Err(ParseCpuSetError::new(text, "CPU number too large"));
            }
            Ok(id)
        };
        for part in t.split(',') {
            if part.trim().is_empty() {
                return Err(ParseCpuSetError::new(text, "empty element between commas"));
            }
            match part.split_once('-') {
                Some((a, b)) => {
                    let (a, b) = (parse_id(a)?, parse_id(b)?);
                    if a > b {
                        return Err(ParseCpuSetError::new(text, "range start is after its end"));
                    }
                    s.insert_range(a, b + 1);
                }
                None => s.insert(parse_id(part)?),
            }
        }
        Ok(s)
    }

    /// Parses a Linux hex mask: 32-bit hex words separated by commas, most
    /// significant word first (`00000000,0000000f` is CPUs 0-3). A leading
    /// `0x` is accepted.
    pub fn from_hex_mask(text: &str) -> Result<Self, ParseCpuSetError> {
        let t = trim_value(text);
        let t = t.strip_prefix("0x").unwrap_or(t);
        if t.is_empty() {
            return Err(ParseCpuSetError::new(text, "empty mask"));
        }
        let chunks: Vec<&str> = t.split(',').collect();
        if chunks.len() * 32 > MAX_CPU_ID {
            return Err(ParseCpuSetError::new(text, "mask too wide"));
        }
        let mut s = CpuSet::new();
        for (i, chunk) in chunks.iter().rev().enumerate() {
            let chunk = chunk.trim();
            if chunk.is_empty() || chunk.len() > 8 {
                return Err(ParseCpuSetError::new(
                    text,
                    "each word must have 1 to 8 hex digits",
                ));
            }
            let w = u32::from_str_radix(chunk, 16)
                .map_err(|_| ParseCpuSetError::new(text, "expected hex digits"))?;
            for bit in 0..32 {
                if w & (1 << bit) != 0 {
                    s.insert(i * 32 + bit);
                }
            }
        }
        Ok(s)
    }

    /// Formats as a Linux hex mask of 32-bit words (at least one word).
    pub fn to_hex_mask(&self) -> String {
        let nwords32 = self.max().map_or(1, |m| m / 32 + 1);
        let mut out = String::new();
        for i in (0..nwords32).rev() {
            let w64 = self.word(i / 2);
            let w = if i % 2 == 0 {
                w64 as u32
            } else {
                (w64 >> 32) as u32
            };
            if !out.is_empty() {
                out.push(',');
            }
            out.push_str(&format!("{w:08x}"));
        }
        out
    }

    /// Word `i` of the bitmap (0 outside the stored window).
    fn word(&self, i: usize) -> u64 {
        i.checked_sub(self.base)
            .and_then(|k| self.words.get(k))
            .copied()
            .unwrap_or(0)
    }

    /// One past the last stored word.
    fn end(&self) -> usize {
        self.base + self.words.len()
    }

    /// Restores the invariant: drops zero words at both ends.
    fn trim(&mut self) {
        while self.words.last() == Some(&0) {
            self.words.pop();
        }
        let lead = self.words.iter().take_while(|&&w| w == 0).count();
        if lead > 0 {
            self.words.drain(..lead);
            self.base += lead;
        }
        if self.words.is_empty() {
            self.base = 0;
        }
    }

    /// Widens the window to hold words `lo..hi` (`lo < hi`).
    fn cover(&mut self, lo: usize, hi: usize) {
        if self.words.is_empty() {
            self.base = lo;
            self.words.resize(hi - lo, 0);
            return;
        }
        if lo < self.base {
            let extra = self.base - lo;
            self.words.splice(0..0, std::iter::repeat_n(0, extra));
            self.base = lo;
        }
        if hi > self.end() {
            self.words.resize(hi - self.base, 0);
        }
    }

    /// Adds `id`. Below the smallest member this moves the stored words
    /// (O(span)); build large sets with [`CpuSet::from_ids`] or `collect`.
    pub fn insert(&mut self, id: usize) {
        let w = id / 64;
        self.cover(w, w + 1);
        self.words[w - self.base] |= 1 << (id % 64);
    }

    /// Adds every id in `start..end`.
    pub fn insert_range(&mut self, start: usize, end: usize) {
        if start >= end {
            return;
        }
        let (first, last) = (start / 64, (end - 1) / 64);
        self.cover(first, last + 1);
        for w in first..=last {
            let lo = if w == first { start % 64 } else { 0 };
            let hi = if w == last { (end - 1) % 64 } else { 63 };
            let mask = (u64::MAX >> (63 - hi)) & (u64::MAX << lo);
            self.words[w - self.base] |= mask;
        }
    }

    /// Removes `id`.
    pub fn remove(&mut self, id: usize) {
        if let Some(w) = (id / 64)
            .checked_sub(self.base)
            .and_then(|k| self.words.get_mut(k))
        {
            *w &= !(1 << (id % 64));
        }
        self.trim();
    }

    /// Whether `id` is in the set.
    pub fn contains(&self, id: usize) -> bool {
        self.word(id / 64) & (1 << (id % 64)) != 0
    }

    /// Number of ids in the set.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The smallest id, if any.
    pub fn min(&self) -> Option<usize> {
        let w = *self.words.first()?;
        Some(self.base * 64 + w.trailing_zeros() as usize)
    }

    /// The largest id, if any.
    pub fn max(&self) -> Option<usize> {
        let w = *self.words.last()?;
        Some((self.end() - 1) * 64 + 63 - w.leading_zeros() as usize)
    }

    /// Ids in increasing order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            words: &self.words,
            base: self.base,
            word: 0,
            bits: self.words.first().copied().unwrap_or(0),
        }
    }

    /// The set of words `lo..hi` combined word by word with `f`.
    fn zip_with(
        &self,
        other: &CpuSet,
        lo: usize,
        hi: usize,
        f: impl Fn(u64, u64) -> u64,
    ) -> CpuSet {
        if lo >= hi {
            return CpuSet::new();
        }
        let words = (lo..hi).map(|i| f(self.word(i), other.word(i))).collect();
        let mut s = CpuSet { base: lo, words };
        s.trim();
        s
    }

    /// `self ∪ other`.
    pub fn union(&self, other: &CpuSet) -> CpuSet {
        if self.is_empty() || other.is_empty() {
            return if self.is_empty() {
                other.clone()
            } else {
                self.clone()
            };
        }
        self.zip_with(
            other,
            self.base.min(other.base),
            self.end().max(other.end()),
            |a, b| a | b,
        )
    }

    /// `self ∩ other`.
    pub fn intersection(&self, other: &CpuSet) -> CpuSet {
        self.zip_with(
            other,
            self.base.max(other.base),
            self.end().min(other.end()),
            |a, b| a & b,
        )
    }

    /// `self \ other`.
    pub fn difference(&self, other: &CpuSet) -> CpuSet {
        self.zip_with(other, self.base, self.end(), |a, b| a & !b)
    }

    /// Whether every id of `self` is in `other`.
    pub fn is_subset(&self, other: &CpuSet) -> bool {
        (self.base..self.end()).all(|i| self.word(i) & !other.word(i) == 0)
    }

    /// Whether the sets share an id.
    pub fn intersects(&self, other: &CpuSet) -> bool {
        (self.base.max(other.base)..self.end().min(other.end()))
            .any(|i| self.word(i) & other.word(i) != 0)
    }
}

/// Iterator over the ids of a [`CpuSet`], in increasing order.
#[derive(Clone)]
pub struct Iter<'a> {
    words: &'a [u64],
    /// Bitmap index of `words[0]`.
    base: usize,
    /// Index in `words` of the word `bits` comes from.
    word: usize,
    bits: u64,
}

impl Iterator for Iter<'_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        loop {
            if self.bits != 0 {
                let b = self.bits.trailing_zeros() as usize;
                self.bits &= self.bits - 1;
                return Some((self.base + self.word) * 64 + b);
            }
            self.word += 1;
            self.bits = *self.words.get(self.word)?;
        }
    }
}

impl<'a> IntoIterator for &'a CpuSet {
    type Item = usize;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl FromIterator<usize> for CpuSet {
    fn from_iter<I: IntoIterator<Item = usize>>(iter: I) -> Self {
        CpuSet::from_ids(iter)
    }
}

impl FromStr for CpuSet {
    type Err = ParseCpuSetError;
    /// Parses a cpulist (see [`CpuSet::from_cpulist`]).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CpuSet::from_cpulist(s)
    }
}

impl fmt::Display for CpuSet {
    /// Formats as a cpulist: `0-3,8,10-11` (empty set: empty string).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut it = self.iter().peekable();
        let mut first = true;
        while let Some(start) = it.next() {
            let mut end = start;
            while it.peek() == Some(&(end + 1)) {
                end = it.next().unwrap_or(end);
            }
            if !first {
                f.write_str(",")?;
            }
            first = false;
            if end == start {
                write!(f, "{start}")?;
            } else {
                write!(f, "{start}-{end}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for CpuSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CpuSet({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpulist_roundtrip() {
        for t in ["", "0", "0-3", "0-3,8,10-11", "1,3,5", "63-65", "1000-1023"] {
            assert_eq!(CpuSet::from_cpulist(t).unwrap().to_string(), t);
        }
        assert_eq!(CpuSet::from_cpulist("0-3\n\0").unwrap().to_string(), "0-3");
        assert_eq!(
            CpuSet::from_cpulist(" 2 , 0-1 ").unwrap().to_string(),
            "0-2"
        );
    }

    #[test]
    fn cpulist_errors_name_the_text() {
        for t in ["a", "3-1", "1,,2", "1-", "-1", "0-99999999999"] {
            let e = CpuSet::from_cpulist(t).unwrap_err();
            assert!(e.to_string().contains(&format!("{t:?}")), "{e}");
        }
    }

    #[test]
    fn hex_masks() {
        assert_eq!(
            CpuSet::from_hex_mask("00000000,0000000f")
                .unwrap()
                .to_string(),
            "0-3"
        );
        assert_eq!(CpuSet::from_hex_mask("3\n").unwrap().to_string(), "0-1");
        assert_eq!(
            CpuSet::from_hex_mask("80000000,00000000")
                .unwrap()
                .to_string(),
            "63"
        );
        let wide = format!("1{}", ",00000000".repeat(31));
        assert_eq!(CpuSet::from_hex_mask(&wide).unwrap().to_string(), "992");
        assert!(CpuSet::from_hex_mask("").is_err());
        assert!(CpuSet::from_hex_mask("xyz").is_err());
        assert!(CpuSet::from_hex_mask("123456789").is_err());
        let s: CpuSet = "0-3,40".parse().unwrap();
        assert_eq!(s.to_hex_mask(), "00000100,0000000f");
        assert_eq!(CpuSet::from_hex_mask(&s.to_hex_mask()).unwrap(), s);
        assert_eq!(CpuSet::new().to_hex_mask(), "00000000");
    }

    #[test]
    fn set_ops() {
        let a: CpuSet = "0-7".parse().unwrap();
        let b: CpuSet = "4-11,200".parse().unwrap();
        assert_eq!(a.union(&b).to_string(), "0-11,200");
        assert_eq!(a.intersection(&b).to_string(), "4-7");
        assert_eq!(b.difference(&a).to_string(), "8-11,200");
        assert_eq!(b.difference(&b), CpuSet::new());
        assert!(a.intersects(&b));
        assert!("4-5".parse::<CpuSet>().unwrap().is_subset(&a));
        assert_eq!(b.max(), Some(200));
        assert_eq!(b.min(), Some(4));
        let mut c = b.clone();
        c.remove(200);
        assert_eq!(c.max(), Some(11));
        assert_eq!(c, "4-11".parse().unwrap());
        assert_eq!(CpuSet::first_n(3).iter().collect::<Vec<_>>(), vec![0, 1, 2]);
    }

    #[test]
    fn window_is_tight_whatever_the_construction() {
        use std::collections::HashSet;
        let far = CpuSet::from_ids([65_000, 65_100]);
        assert_eq!(
            (far.base, far.words.len()),
            (65_000 / 64, 65_100 / 64 - 65_000 / 64 + 1),
            "only the words between min and max"
        );
        let mut down = CpuSet::new();
        for id in [65_100, 65_000] {
            down.insert(id);
        }
        let mut ranged = CpuSet::new();
        ranged.insert_range(64_990, 65_101);
        for id in (64_990..65_101).filter(|&i| i != 65_000 && i != 65_100) {
            ranged.remove(id);
        }
        assert_eq!(down, far);
        assert_eq!(ranged, far);
        assert_eq!(
            (ranged.base, ranged.words.len()),
            (far.base, far.words.len())
        );
        let hashed: HashSet<CpuSet> = [far.clone(), down, ranged].into_iter().collect();
        assert_eq!(hashed.len(), 1, "equal sets hash alike");
        assert_eq!(far.iter().collect::<Vec<_>>(), [65_000, 65_100]);
        assert_eq!(
            (far.min(), far.max(), far.len()),
            (Some(65_000), Some(65_100), 2)
        );
        assert_eq!(far.to_string(), "65000,65100");
        assert_eq!(CpuSet::from_hex_mask(&far.to_hex_mask()).unwrap(), far);
        let mut gone = far.clone();
        gone.remove(65_000);
        gone.remove(65_100);
        assert_eq!(gone, CpuSet::new());
        assert_eq!((gone.base, gone.words.len()), (0, 0));
    }

    #[test]
    fn ops_between_distant_windows() {
        let a: CpuSet = "0-3".parse().unwrap();
        let b: CpuSet = "1000-1003".parse().unwrap();
        let u = a.union(&b);
        assert_eq!(u.to_string(), "0-3,1000-1003");
        assert!(a.intersection(&b).is_empty() && !a.intersects(&b));
        assert_eq!(u.difference(&a), b);
        assert_eq!(u.intersection(&b), b);
        assert!(a.is_subset(&u) && b.is_subset(&u) && !u.is_subset(&b));
        assert!(CpuSet::new().is_subset(&a));
        let c: CpuSet = "62-66".parse().unwrap();
        assert_eq!(c.words.len(), 2);
        assert_eq!(
            c.intersection(&"64-200".parse().unwrap()).to_string(),
            "64-66"
        );
        assert_eq!(c.difference(&"0-63".parse().unwrap()).base, 1);
        let mut d = CpuSet::new();
        d.insert_range(5, 5);
        assert!(d.is_empty());
        d.insert_range(63, 129);
        assert_eq!(d.to_string(), "63-128");
        assert_eq!(d.len(), 66);
    }
}
