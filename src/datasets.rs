//! Data sets bundled with the library, so that examples and first tries run
//! from any crate (no path to this crate's `data/` folder needed).

use crate::graph::io::{tu, IoError};
use crate::graph::Dataset;

/// The TU files of MUTAG (188 molecules, 148 KB), compiled into the library.
const MUTAG: [(&str, &str); 5] = [
    ("MUTAG_A.txt", include_str!("../data/MUTAG/MUTAG_A.txt")),
    ("MUTAG_edge_labels.txt", include_str!("../data/MUTAG/MUTAG_edge_labels.txt")),
    ("MUTAG_graph_indicator.txt", include_str!("../data/MUTAG/MUTAG_graph_indicator.txt")),
    ("MUTAG_graph_labels.txt", include_str!("../data/MUTAG/MUTAG_graph_labels.txt")),
    ("MUTAG_node_labels.txt", include_str!("../data/MUTAG/MUTAG_node_labels.txt")),
];

/// MUTAG (Debnath et al., 1991): 188 nitro compounds, mutagenic or not
/// (graph labels ±1), with atom types (node field `label`) and bond types
/// (edge field `label`), read by [`tu::read_dataset`] from the copy bundled
/// with the library.
///
/// # Examples
/// ```
/// let ds = kronograph::datasets::mutag()?;
/// assert_eq!((ds.len(), ds.num_nodes(), ds.num_edges()), (188, 3371, 3721));
/// # Ok::<(), kronograph::graph::io::IoError>(())
/// ```
///
/// # Errors
/// [`IoError::Os`] when the temporary folder it is unpacked into cannot be
/// written.
pub fn mutag() -> Result<Dataset, IoError> {
    let dir = tempfile::Builder::new()
        .prefix("kronograph-mutag")
        .tempdir()
        .map_err(|source| IoError::Os { path: std::env::temp_dir(), source })?;
    let folder = dir.path().join("MUTAG");
    std::fs::create_dir(&folder).map_err(|source| IoError::Os { path: folder.clone(), source })?;
    for (name, text) in MUTAG {
        let p = folder.join(name);
        std::fs::write(&p, text).map_err(|source| IoError::Os { path: p, source })?;
    }
    tu::read_dataset(&folder)
}
