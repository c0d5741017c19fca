//! `balanced_leaves` claims: the most even leaf sizes of a leaf-occupancy figure.

use super::LeafBalance;

/// A `balanced_leaves` claim: `method`'s coefficient of variation of leaf sizes on
/// `figure` is strictly below that of every method of `than`; (holds, details).
pub(super) fn balanced_leaves(
    figure: &str,
    method: &str,
    than: &[String],
    leaves: &[LeafBalance],
) -> (bool, String) {
    let cv = |m: &str| {
        leaves
            .iter()
            .find(|l| l.figure == figure && l.method == m)
            .map(|l| l.cv)
    };
    let Some(ours) = cv(method) else {
        return (
            false,
            format!("no leaf-occupancy summary of {method} on figure {figure} (is `{figure}` a leaf_occupancy figure of the spec?)"),
        );
    };
    let mut parts = vec![format!("{method} CV {ours:.3}")];
    let mut holds = true;
    for t in than {
        match cv(t) {
            Some(v) => {
                parts.push(format!("{t} {v:.3}"));
                holds &= ours < v;
            }
            None => {
                parts.push(format!("{t} has no summary"));
                holds = false;
            }
        }
    }
    (holds, parts.join(", "))
}
