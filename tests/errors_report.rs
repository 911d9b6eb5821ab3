//! Errors as a user meets them: empty graphs and zero norms in every graph
//! kernel entry point give typed errors or defined zeros (never NaN), and
//! the crate's `Error` prints its message as its Debug form (what
//! `fn main() -> kronograph::Result<()>` shows).

use kronograph::graph::{Direction, GraphBuilder};
use kronograph::mgk::{MarginalizedGraphKernel, MgkError};
use kronograph::rw::RandomWalkKernel;
use kronograph::{Backend, Error, Unlabeled};

fn empty() -> kronograph::graph::Graph<(), ()> {
    GraphBuilder::new(0, Direction::Undirected).default_node_labels().build().unwrap()
}

fn path3() -> kronograph::graph::Graph<(), ()> {
    GraphBuilder::new(3, Direction::Undirected)
        .default_node_labels()
        .edge(0, 1, 1.0, ())
        .edge(1, 2, 1.0, ())
        .build()
        .unwrap()
}

#[test]
fn empty_graphs_through_every_entry_point() {
    let k = MarginalizedGraphKernel::new(Unlabeled, Unlabeled, 0.05).unwrap();
    let (g, e) = (path3(), empty());
    // nodal: an empty matrix, nothing to be NaN
    let nodal = k.nodal(&e, &g).unwrap();
    assert_eq!((nodal.rows(), nodal.cols()), (0, 3));
    assert_eq!(k.pair(&e, &g).unwrap(), 0.0);
    let d = k.diag(&[g.clone(), e.clone()]).unwrap();
    assert!(d[0] > 0.0 && d[1] == 0.0);
    // normalized forms: ZeroNorm naming the graph, through the crate Error too
    for result in [
        k.gram_normalized_on(Backend::Cpu, &[g.clone(), e.clone()]),
        k.gram_xy_normalized_on(Backend::Cpu, std::slice::from_ref(&g), std::slice::from_ref(&e)),
    ] {
        let err = result.unwrap_err();
        assert!(matches!(err, Error::Mgk(MgkError::ZeroNorm { .. })), "{err}");
        let debug = format!("{err:?}");
        assert_eq!(debug, err.to_string());
        assert!(!debug.contains("ZeroNorm"), "{debug}");
    }
    let (gram, _) = k.gram_with_gradient(&[g.clone(), g.clone()], true).unwrap();
    assert!(gram.as_slice().iter().all(|v| v.is_finite()));
    // random walk: zero rows, no NaN
    let rw = RandomWalkKernel::new(0.1).unwrap().gram(&[g, e]).unwrap();
    assert!(rw.as_slice().iter().all(|v| v.is_finite()));
    assert_eq!(rw.get(1, 1), 0.0);
}

#[test]
fn debug_is_the_message() {
    // a kernel refused when built: the message names what to change
    let err: Error = MarginalizedGraphKernel::<(), (), _, _>::new(Unlabeled, Unlabeled, 1.5).unwrap_err().into();
    assert_eq!(format!("{err:?}"), err.to_string());
    assert!(err.to_string().contains("q = 1.5"), "{err}");
    // a file error: the path and the OS's reason once, not a variant tree
    let err: Error = kronograph::graph::io::load("/nonexistent/kronograph/set").unwrap_err().into();
    let debug = format!("{err:?}");
    assert!(debug.starts_with("/nonexistent/kronograph/set"), "{debug}");
    assert!(!debug.contains("Os {") && !debug.contains("caused by"), "{debug}");
}
