//! [`YearMonth`]: a calendar month, written `YYYY-MM` as in the layer-1 folder
//! and layer-3 archive names (it is part of the layout, hence here; the
//! memory store re-exports it as `memory::month`).

use std::fmt;
use std::str::FromStr;

use chrono::{Datelike, NaiveDate};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A calendar month such as `2026-09`; orders chronologically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct YearMonth {
    year: i32,
    month: u32,
}

impl YearMonth {
    /// The month `date` falls in.
    pub fn of(date: NaiveDate) -> Self {
        YearMonth {
            year: date.year(),
            month: date.month(),
        }
    }

    /// The month `n` months before this one.
    pub fn minus(self, n: u32) -> Self {
        let index = self.year * 12 + self.month as i32 - 1 - n as i32;
        YearMonth {
            year: index.div_euclid(12),
            month: index.rem_euclid(12) as u32 + 1,
        }
    }
}

impl From<NaiveDate> for YearMonth {
    fn from(date: NaiveDate) -> Self {
        YearMonth::of(date)
    }
}

impl fmt::Display for YearMonth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}", self.year, self.month)
    }
}

impl FromStr for YearMonth {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || format!("{s:?} is not a month; write it as YYYY-MM, e.g. 2026-09");
        let (y, m) = s.split_once('-').ok_or_else(bad)?;
        if y.len() != 4 || m.len() != 2 || !(y.chars().chain(m.chars())).all(|c| c.is_ascii_digit())
        {
            return Err(bad());
        }
        let (year, month) = (y.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?);
        if !(1..=12).contains(&month) {
            return Err(bad());
        }
        Ok(YearMonth { year, month })
    }
}

impl Serialize for YearMonth {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for YearMonth {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_prints_and_orders() {
        let m: YearMonth = "2026-09".parse().unwrap();
        assert_eq!(m.to_string(), "2026-09");
        assert!(m < "2026-10".parse().unwrap());
        assert!("2025-12".parse::<YearMonth>().unwrap() < m);
        for bad in [
            "2026-9",
            "2026-13",
            "2026-00",
            "26-09",
            "2026/09",
            "",
            "2026-09-01",
        ] {
            assert!(bad.parse::<YearMonth>().is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn steps_back_across_years() {
        let m = YearMonth::of(NaiveDate::from_ymd_opt(2026, 2, 14).unwrap());
        assert_eq!(m.minus(0).to_string(), "2026-02");
        assert_eq!(m.minus(2).to_string(), "2025-12");
        assert_eq!(m.minus(14).to_string(), "2024-12");
    }

    #[test]
    fn serializes_as_a_string() {
        let m: YearMonth = serde_json::from_str("\"2026-01\"").unwrap();
        assert_eq!(serde_json::to_string(&m).unwrap(), "\"2026-01\"");
        assert!(serde_json::from_str::<YearMonth>("\"2026-1\"").is_err());
    }
}
