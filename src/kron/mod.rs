//! Lazy Kronecker products.
