//! Named ticks on a chart's x axis (a suite's tests, a sweep's cells) that
//! do not run into each other: when the names are wider than their slots,
//! every other one goes on a second row, and a name still too long for two
//! slots is cut with an ellipsis, its whole text in a tooltip (`<title>`).
//! A suite's x axis used to print `PING_INLINEPING_MBULKSET`.

/// The width one character of a tick label takes, px, at the charts' 12 px
/// (upper-case names, with room to spare).
pub const CHAR_PX: f64 = 7.5;

/// How a named tick is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    /// The text shown: the name, or its start and `…`.
    pub shown: String,
    /// 0 for the row under the axis, 1 for the row under that.
    pub row: u8,
    /// True when `shown` is cut: the whole name goes in a tooltip.
    pub cut: bool,
}

/// Where each of `labels` goes, `slot` px apart.
pub fn place(labels: &[String], slot: f64) -> Vec<Placed> {
    let fits = |chars: usize, room: f64| chars as f64 * CHAR_PX <= room;
    let one_row = labels.iter().all(|l| fits(l.chars().count(), slot));
    let (rows, room) = if one_row { (1, slot) } else { (2, 2.0 * slot) };
    let max_chars = ((room / CHAR_PX).floor() as usize).max(2);
    labels
        .iter()
        .enumerate()
        .map(|(i, label)| {
            let cut = label.chars().count() > max_chars;
            let shown = if cut {
                let mut s: String = label.chars().take(max_chars - 1).collect();
                s.push('…');
                s
            } else {
                label.clone()
            };
            Placed {
                shown,
                row: (i % rows) as u8,
                cut,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No two labels of one row overlap: each is within the room its row
    /// gives it around its centre.
    fn no_overlap(placed: &[Placed], slot: f64) {
        for (i, a) in placed.iter().enumerate() {
            for (j, b) in placed.iter().enumerate().skip(i + 1) {
                if a.row != b.row {
                    continue;
                }
                let half = |p: &Placed| p.shown.chars().count() as f64 * CHAR_PX / 2.0;
                let gap = (j - i) as f64 * slot;
                assert!(half(a) + half(b) <= gap, "{a:?} and {b:?} overlap");
            }
        }
    }

    #[test]
    fn a_suites_names_take_two_rows_and_never_run_together() {
        let names: Vec<String> = [
            "PING_INLINE",
            "PING_MBULK",
            "SET",
            "GET",
            "INCR",
            "LPUSH",
            "RPUSH",
            "LPOP",
            "RPOP",
            "SADD",
            "HSET",
            "SPOP",
            "ZADD",
            "ZPOPMIN",
            "LPUSH (needed to benchmark LRANGE)",
            "LRANGE_100 (first 100 elements)",
            "LRANGE_300 (first 300 elements)",
            "LRANGE_500 (first 500 elements)",
            "LRANGE_600 (first 600 elements)",
            "MSET (10 keys)",
        ]
        .map(String::from)
        .to_vec();
        let slot = 782.0 / names.len() as f64;
        let placed = place(&names, slot);
        assert!(placed.iter().any(|p| p.row == 1));
        assert!(placed.iter().any(|p| p.cut && p.shown.ends_with('…')));
        assert_eq!(placed[2].shown, "SET");
        no_overlap(&placed, slot);
    }

    #[test]
    fn short_names_stay_on_one_row_whole() {
        let cells: Vec<String> = ["pipeline=1", "pipeline=4", "pipeline=16"]
            .map(String::from)
            .to_vec();
        let placed = place(&cells, 260.0);
        assert!(placed.iter().all(|p| p.row == 0 && !p.cut));
        assert_eq!(placed[2].shown, "pipeline=16");
    }
}
