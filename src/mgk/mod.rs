//! Marginalized graph kernel.
