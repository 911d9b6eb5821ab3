//! Semiring axioms for every built-in, and the consistency of their CUDA forms.

use kronograph_semirings::*;
use proptest::prelude::*;

fn p0() -> Position {
    Position::default()
}

/// Monoid laws of `⊕` (associative, commutative, identity, terminal absorbs)
/// and semiring laws of `⊗` (associative, distributive both sides, zero annihilates).
fn check_semiring<S>(s: S, a: S::C, b: S::C, c: S::C) -> Result<(), TestCaseError>
where
    S: Semiring<A = <S as Semiring>::C, B = <S as Semiring>::C>,
{
    let m = s.add_monoid();
    let (p, z) = (p0(), m.identity());
    prop_assert_eq!(s.add(s.add(a, b), c), s.add(a, s.add(b, c)), "⊕ associative");
    prop_assert_eq!(s.add(a, b), s.add(b, a), "⊕ commutative");
    prop_assert_eq!(s.add(a, z), a, "⊕ identity");
    prop_assert_eq!(s.add(z, a), a, "⊕ identity");
    if let Some(t) = m.terminal() {
        prop_assert_eq!(s.add(t, a), t, "terminal absorbs");
        prop_assert!(m.is_terminal(&t));
    }
    if m.is_idempotent() {
        prop_assert_eq!(s.add(a, a), a, "idempotent");
    }
    let mul = |x, y| s.multiply(x, y, p);
    prop_assert_eq!(mul(mul(a, b), c), mul(a, mul(b, c)), "⊗ associative");
    prop_assert_eq!(mul(a, s.add(b, c)), s.add(mul(a, b), mul(a, c)), "left distributive");
    prop_assert_eq!(mul(s.add(a, b), c), s.add(mul(a, c), mul(b, c)), "right distributive");
    prop_assert_eq!(mul(z, a), z, "0 annihilates");
    prop_assert_eq!(mul(a, z), z, "0 annihilates");
    Ok(())
}

/// Floats on exactly representable small integers (sums and products of
/// three stay exact), plus the infinities where they are the identity.
fn small_f64() -> impl Strategy<Value = f64> {
    (-64i32..64).prop_map(f64::from)
}
fn small_f32() -> impl Strategy<Value = f32> {
    (-64i32..64).prop_map(|v| v as f32)
}

macro_rules! tropical_tests {
    ($name:ident, $t:ty, $strat:expr) => {
        proptest! {
            #[test]
            fn $name(a in $strat, b in $strat, c in $strat, inf in 0u8..4) {
                // Mix in ±∞ (or the integer extremes) sometimes.
                let pick = |v: $t, k: u8| match k { 1 => <$t as Number>::MAX_VALUE, 2 => <$t as Number>::MIN_VALUE, _ => v };
                let (a, b) = (pick(a, inf & 1), pick(b, inf & 2));
                check_semiring(MinPlus::<$t>::new(), a, b, c)?;
                check_semiring(MaxMin::<$t>::new(), a, b, c)?;
                let (a2, b2) = (pick(a, if inf & 1 == 1 { 2 } else { 0 }), b);
                if a2 != <$t as Number>::MAX_VALUE && b2 != <$t as Number>::MAX_VALUE {
                    check_semiring(MaxPlus::<$t>::new(), a2, if b2 == <$t as Number>::MAX_VALUE { c } else { b2 }, c)?;
                }
                check_semiring(PlusTimes::<$t>::new(), a.min2(<$t>::from(100u8)).max2(<$t as Number>::ZERO), c, c)?;
            }
        }
    };
}

tropical_tests!(tropical_f64, f64, small_f64());
tropical_tests!(tropical_f32, f32, small_f32());
tropical_tests!(tropical_i32, i32, -1000i32..1000);
tropical_tests!(tropical_i64, i64, -1000i64..1000);
tropical_tests!(tropical_u32, u32, 0u32..1000);
tropical_tests!(tropical_u64, u64, 0u64..1000);

proptest! {
    #[test]
    fn plus_times_integers_wrap(a: i64, b: i64, c: i64, x: u32, y: u32, z: u32) {
        check_semiring(PlusTimes::<i64>::new(), a, b, c)?;
        check_semiring(PlusTimes::<u32>::new(), x, y, z)?;
        check_semiring(PlusTimes::<i32>::new(), x as i32, y as i32, z as i32)?;
        check_semiring(PlusTimes::<u64>::new(), a as u64, b as u64, c as u64)?;
    }

    #[test]
    fn plus_times_floats_exact(a in small_f64(), b in small_f64(), c in small_f64()) {
        check_semiring(PlusTimes::<f64>::new(), a, b, c)?;
        check_semiring(PlusTimes::<f32>::new(), a as f32, b as f32, c as f32)?;
    }

    #[test]
    fn lor_land(a: bool, b: bool, c: bool) {
        check_semiring(LorLand, a, b, c)?;
    }

    #[test]
    fn gf256(a: u8, b: u8, c: u8) {
        check_semiring(Gf256, a, b, c)?;
        prop_assert_eq!(Gf256.multiply(a, 1, p0()), a);
    }

    #[test]
    fn gf2p64(a: u64, b: u64, c: u64) {
        check_semiring(Gf2p64, a, b, c)?;
        prop_assert_eq!(Gf2p64.multiply(a, 1, p0()), a);
        prop_assert_eq!(gf2p64_mul(a, b), gf2p64_mul_portable(a, b));
    }

    #[test]
    fn structural_semirings(i in 0usize..100, k in 0usize..100, j in 0usize..100, a: f64, b: f32) {
        let pos = Position::new(i, k, j);
        prop_assert!(AnyPair::<f64, f32>::new().multiply(a, b, pos));
        prop_assert_eq!(AnySecondi::<f64, f32>::new().multiply(a, b, pos), k as u64);
        prop_assert_eq!(PlusPair::<f64, f32, u64>::new().multiply(a, b, pos), 1);
        // ANY keeps the first operand, every value is terminal, idempotent.
        let any = AnySecondi::<f64, f32>::new().add_monoid();
        prop_assert_eq!(Monoid::<u64>::combine(&any, i as u64, j as u64), i as u64);
        prop_assert!(Monoid::<u64>::is_terminal(&any, &(k as u64)));
        // plus-pair counts terms
        let pp = PlusPair::<(), (), u32>::new();
        let n = (0..k).fold(pp.zero(), |acc, _| pp.add(acc, pp.multiply((), (), pos)));
        prop_assert_eq!(n, k as u32);
    }
}

#[test]
fn gf256_test_vectors_through_semiring() {
    for (a, b, c) in [
        (0x02, 0x80, 0x1D),
        (0x80, 0x80, 0x13),
        (0x03, 0x03, 0x05),
        (0x53, 0xCA, 0x8F),
        (0xFF, 0xFF, 0xE2),
        (0x57, 0x83, 0x31),
    ] {
        assert_eq!(Gf256.multiply(a, b, p0()), c);
    }
}

#[test]
fn monoid_identities_and_terminals() {
    assert_eq!(Monoid::<f64>::identity(&Min), f64::INFINITY);
    assert_eq!(Monoid::<f64>::terminal(&Min), Some(f64::NEG_INFINITY));
    assert_eq!(Monoid::<i32>::identity(&Max), i32::MIN);
    assert_eq!(Monoid::<u8>::identity(&Xor), 0);
    assert_eq!(Monoid::<bool>::terminal(&Lor), Some(true));
    assert_eq!(Monoid::<bool>::terminal(&Land), Some(false));
    assert_eq!(Monoid::<i64>::terminal(&Times), Some(0));
    assert_eq!(Monoid::<f32>::terminal(&Times), None);
    assert!(Monoid::<f64>::is_idempotent(&Min));
    assert!(!Monoid::<f64>::is_idempotent(&Plus));
    // 0 is an ordinary value for unsigned min-plus (labels, hop counts) ...
    assert_eq!(MinPlus::<u64>::new().multiply(0, 5, p0()), 5);
    assert_eq!(MinPlus::<u32>::new().multiply(u32::MAX, 0, p0()), u32::MAX);
    // ... and −∞ for signed and float min-plus
    assert_eq!(MinPlus::<i32>::new().multiply(i32::MIN, 5, p0()), i32::MIN);
    assert_eq!(MinPlus::<f64>::new().multiply(f64::NEG_INFINITY, 5.0, p0()), f64::NEG_INFINITY);
}

fn all_cuda_forms() -> Vec<CudaSemiring> {
    macro_rules! numeric {
        ($($t:ty),*) => {
            vec![$(
                PlusTimes::<$t>::new().cuda(),
                MinPlus::<$t>::new().cuda(),
                MaxPlus::<$t>::new().cuda(),
                MaxMin::<$t>::new().cuda(),
                PlusPair::<(), (), $t>::new().cuda(),
            )*]
        };
    }
    let mut v = numeric!(f32, f64, i32, i64, u32, u64);
    v.extend([
        LorLand.cuda(),
        AnyPair::<f64, f64>::new().cuda(),
        AnySecondi::<f64, f64>::new().cuda(),
        Gf256.cuda(),
        Gf2p64.cuda(),
    ]);
    v
}

#[test]
fn cuda_snippets_are_consistent() {
    let forms = all_cuda_forms();
    let mut names = std::collections::BTreeSet::new();
    for c in &forms {
        check_cuda_snippet(c).unwrap_or_else(|e| panic!("{e}\n{}", c.source()));
        assert!(names.insert(c.name.clone()), "duplicate name {}", c.name);
        let src = c.source();
        assert!(src.contains(&format!("typedef {} kg_c_t;", c.c_type)));
    }
    assert_eq!(forms.len(), 35);
}

#[test]
fn cuda_check_rejects_broken_snippets() {
    let good = MinPlus::<f64>::new().cuda();
    let mut bad = good.clone();
    bad.add = "return (y < x ? y : x;".into();
    assert!(matches!(check_cuda_snippet(&bad), Err(CudaSnippetError::Unbalanced { .. })));
    let mut bad = good.clone();
    bad.multiply = "return kg_undefined(a, b);".into();
    assert!(matches!(check_cuda_snippet(&bad), Err(CudaSnippetError::Names { .. })));
    let mut bad = good.clone();
    bad.helpers = "__device__ kg_c_t kg_add(kg_c_t x, kg_c_t y) { return x; }".into();
    assert!(matches!(check_cuda_snippet(&bad), Err(CudaSnippetError::Names { .. })));
    let mut bad = good.clone();
    bad.atomic_update = "atomicMin(p, v)".into();
    assert!(matches!(check_cuda_snippet(&bad), Err(CudaSnippetError::Malformed { .. })));
    let mut bad = good;
    bad.identity = " ".into();
    assert!(matches!(check_cuda_snippet(&bad), Err(CudaSnippetError::Malformed { .. })));
}
