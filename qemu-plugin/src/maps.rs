//! Which file each translated block's code is in, found when the block is
//! translated: the process's file mappings (`/proc/self/maps`: under
//! `qemu-user` the guest's files are mapped by the host, by name), read
//! again after the guest maps or unmaps memory. A library closed before
//! the counts are written (MPI runtimes close their components in
//! `MPI_Finalize`) keeps its blocks, and a library mapped later where it
//! was gets its own.

use std::collections::HashMap;

/// A mapping of `/proc/self/maps` backed by a file, or anonymous
/// ([`carmbench_counts::protocol::ANONYMOUS`], its offsets from its start).
#[derive(Debug, Clone, PartialEq)]
pub struct Mapping {
    pub start: u64,
    pub end: u64,
    /// Offset in the file of `start`.
    pub offset: u64,
    pub path: String,
}

/// The file-backed mappings in `/proc/self/maps` text, by start address.
pub fn mappings(text: &str) -> Vec<Mapping> {
    let mut out: Vec<Mapping> = text
        .lines()
        .filter_map(|line| {
            let mut w = line.splitn(6, ' ');
            let (range, _perms, offset) = (w.next()?, w.next()?, w.next()?);
            let path = w.nth(2).unwrap_or_default().trim();
            let (start, end) = range.split_once('-')?;
            // Anonymous memory holds a JIT's code: named as perf names it.
            let path = match path {
                "" => carmbench_counts::protocol::ANONYMOUS,
                p if p.starts_with('/') => p,
                _ => return None,
            };
            Some(Mapping {
                start: u64::from_str_radix(start, 16).ok()?,
                end: u64::from_str_radix(end, 16).ok()?,
                offset: u64::from_str_radix(offset, 16).ok()?,
                path: path.strip_suffix(" (deleted)").unwrap_or(path).to_string(),
            })
        })
        .collect();
    out.sort_by_key(|m| m.start);
    out
}

/// The mapping holding `address`.
pub fn locate(maps: &[Mapping], address: u64) -> Option<&Mapping> {
    let i = maps
        .partition_point(|m| m.start <= address)
        .checked_sub(1)?;
    (address < maps[i].end).then(|| &maps[i])
}

/// The index in `maps` of the mapping holding `address`.
pub fn index_of(maps: &[Mapping], address: u64) -> Option<u32> {
    let m = locate(maps, address)?;
    maps.iter()
        .position(|x| std::ptr::eq(x, m))
        .map(|i| i as u32)
}

/// Every file mapping a block was found in, and the mappings as the
/// process last had them.
#[derive(Debug, Default)]
pub struct Maps {
    /// Every mapping a block was found in, by index; kept when unmapped.
    pub all: Vec<Mapping>,
    /// The mappings when last read, each with its index in `all` once a
    /// block was found in it.
    current: Vec<(Mapping, Option<u32>)>,
    read: bool,
    /// The guest's anonymous mappings (host start to end), as its `mmap`
    /// calls made them: the host merges neighbours into one mapping, the
    /// native kernel names each as made (a JIT's code is found from its
    /// own mapping's start in both runs).
    anonymous: std::collections::BTreeMap<u64, u64>,
    /// The index in `all` of each anonymous mapping placed.
    narrowed: HashMap<(u64, u64), u32>,
}

impl Maps {
    /// The index in [`Maps::all`] of the mapping holding `address`; the
    /// mappings read again (by `read`) first when they `changed` or were
    /// never read.
    pub fn place(
        &mut self,
        address: u64,
        changed: bool,
        read: impl FnOnce() -> String,
    ) -> Option<u32> {
        if changed || !self.read {
            self.refresh(&read());
        }
        let i = (self.current)
            .partition_point(|(m, _)| m.start <= address)
            .checked_sub(1)?;
        let (m, id) = &mut self.current[i];
        if address >= m.end {
            return None;
        }
        if m.path == carmbench_counts::protocol::ANONYMOUS
            && let Some((&s, &e)) = self.anonymous.range(..=address).next_back()
            && address < e
        {
            let (s, e) = (s.max(m.start), e.min(m.end));
            let all = &mut self.all;
            let id = *self.narrowed.entry((s, e)).or_insert_with(|| {
                all.push(Mapping {
                    start: s,
                    end: e,
                    offset: 0,
                    path: carmbench_counts::protocol::ANONYMOUS.into(),
                });
                all.len() as u32 - 1
            });
            return Some(id);
        }
        if id.is_none() {
            self.all.push(m.clone());
            *id = Some(self.all.len() as u32 - 1);
        }
        *id
    }

    /// The mappings from `text`, those unchanged keeping their index.
    /// The guest mapped anonymous memory at `start..end` (host addresses).
    pub fn mapped_anonymous(&mut self, start: u64, end: u64) {
        self.unmapped(start, end);
        self.anonymous.insert(start, end);
    }

    /// The guest unmapped `start..end`: the anonymous mappings it overlaps
    /// are gone.
    pub fn unmapped(&mut self, start: u64, end: u64) {
        let gone: Vec<u64> = (self.anonymous.range(..end))
            .filter(|(_, e)| **e > start)
            .map(|(s, _)| *s)
            .collect();
        gone.iter().for_each(|s| {
            self.anonymous.remove(s);
        });
    }

    fn refresh(&mut self, text: &str) {
        let key = |m: &Mapping| (m.start, m.end, m.offset, m.path.clone());
        let known: HashMap<_, u32> = (self.current.iter())
            .filter_map(|(m, id)| Some((key(m), (*id)?)))
            .collect();
        self.current = (mappings(text).into_iter())
            .map(|m| {
                let id = known.get(&key(&m)).copied();
                (m, id)
            })
            .collect();
        self.read = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEFORE: &str = "00401000-00402000 r-xp 00001000 08:01 12 /usr/bin/prog\n\
                          7f0000000000-7f0000010000 r-xp 00000000 08:01 13 /lib/mca_btl_vader.so\n";

    #[test]
    fn a_closed_library_keeps_its_blocks_and_its_successor_gets_its_own() {
        let mut maps = Maps::default();
        let vader = maps.place(0x7f0000000100, false, || BEFORE.into());
        let prog = maps.place(0x401010, false, || unreachable!("read once"));
        assert_eq!((vader, prog), (Some(0), Some(1)));
        // Closed, and another library mapped where it was.
        let after = "00401000-00402000 r-xp 00001000 08:01 12 /usr/bin/prog\n\
                     7f0000000000-7f0000010000 r-xp 00000000 08:01 14 /lib/libother.so\n";
        let other = maps.place(0x7f0000000100, true, || after.into());
        assert_eq!(other, Some(2));
        assert_eq!(maps.all[0].path, "/lib/mca_btl_vader.so");
        assert_eq!(maps.all[2].path, "/lib/libother.so");
        // Unchanged mappings keep their index; code in no file has none.
        assert_eq!(maps.place(0x401020, true, || after.into()), Some(1));
        assert_eq!(maps.place(0x7e0000000000, false, || unreachable!()), None);
        assert_eq!(maps.all.len(), 3);
    }

    #[test]
    fn anonymous_code_is_placed_in_the_mapping_the_guest_made() {
        // The host merged the guest's two anonymous mappings into one.
        let text = "7f0000000000-7f0000004000 rw-p 00000000 00:00 0 \n";
        let mut maps = Maps::default();
        maps.mapped_anonymous(0x7f0000002000, 0x7f0000003000);
        let jit = maps.place(0x7f0000002010, false, || text.into()).unwrap();
        let m = &maps.all[jit as usize];
        assert_eq!((m.start, m.end), (0x7f0000002000, 0x7f0000003000));
        assert_eq!(m.path, carmbench_counts::protocol::ANONYMOUS);
        // Outside it: the host's mapping; unmapped, the same.
        let other = maps
            .place(0x7f0000000010, false, || unreachable!())
            .unwrap();
        assert_eq!(maps.all[other as usize].start, 0x7f0000000000);
        maps.unmapped(0x7f0000002000, 0x7f0000002001);
        assert_eq!(
            maps.place(0x7f0000002010, false, || unreachable!()),
            Some(other)
        );
    }
}
