//! How far two lists of numbers rank things alike: Spearman's rank
//! correlation, for holding handoff scores against what handoffs turned out
//! to be worth (the calibration bench, `lint --outcomes`).

/// Spearman's rank correlation of `x` and `y` (Pearson on average ranks,
/// so ties share a rank); `None` when either list has no spread or they
/// are shorter than 2 or of different lengths.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < 2 {
        return None;
    }
    pearson(&ranks(x), &ranks(y))
}

/// The rank of each value (1-based), ties given their average rank.
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|a, b| v[*a].total_cmp(&v[*b]));
    let mut ranks = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for k in &order[i..=j] {
            ranks[*k] = rank;
        }
        i = j + 1;
    }
    ranks
}

/// Pearson's correlation; `None` without spread.
fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let cov: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum::<f64>().sqrt();
    let sy: f64 = y.iter().map(|b| (b - my).powi(2)).sum::<f64>().sqrt();
    (sx > 0.0 && sy > 0.0).then(|| cov / (sx * sy))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_agree_disagree_and_tie() {
        let near = |r: Option<f64>, want: f64| r.is_some_and(|r| (r - want).abs() < 1e-9);
        assert!(near(spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 35.0]), 1.0));
        assert!(near(spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), -1.0));
        // Ties share a rank: [1, 2.5, 2.5, 4] against [1, 2, 3, 4].
        let r = spearman(&[1.0, 5.0, 5.0, 9.0], &[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert!((r - 0.9487).abs() < 1e-3, "{r}");
        assert_eq!(spearman(&[1.0, 1.0], &[1.0, 2.0]), None, "no spread");
        assert_eq!(spearman(&[1.0], &[1.0]), None);
    }
}
