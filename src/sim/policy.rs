//! The policy a simulated pool runs ([`Policy`]): locus's steal orders,
//! with or without the cluster switch, or the rayon-like comparison; see
//! the [module docs](super#policies).
//!
//! Invariants: [`Policy::ALL`] lists every policy once, in report order,
//! and [`Policy::name`] and [`Policy::parse`] are inverse on it (the
//! reports and `scripts/sim_results.py` read the names).

use std::fmt;

use crate::layout::StealOrder;

use super::error::SimError;

/// The policy a simulated pool runs: see the [module docs](super#policies).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Steal tiers nearest first, cluster level on (the pool's default).
    Hierarchical,
    /// One tier of every other worker ([`StealOrder::Flat`]).
    Flat,
    /// Hierarchical with the cluster level switched off.
    ClusterOff,
    /// Rayon's mechanisms, for comparison.
    RayonLike,
}

impl Policy {
    /// Every policy, in report order.
    pub const ALL: [Policy; 4] = [
        Policy::Hierarchical,
        Policy::Flat,
        Policy::ClusterOff,
        Policy::RayonLike,
    ];

    /// Its name: `hierarchical`, `flat`, `cluster-off`, `rayon-like`.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Hierarchical => "hierarchical",
            Policy::Flat => "flat",
            Policy::ClusterOff => "cluster-off",
            Policy::RayonLike => "rayon-like",
        }
    }

    /// The policy called `name`.
    ///
    /// # Errors
    /// An unknown name; the message lists the known ones.
    pub fn parse(name: &str) -> Result<Policy, SimError> {
        Policy::ALL.into_iter().find(|p| p.name() == name).ok_or_else(|| {
            SimError(format!("unknown policy `{name}`; the policies are hierarchical, flat, cluster-off, rayon-like"))
        })
    }

    pub(super) fn steal_order(self) -> StealOrder {
        match self {
            Policy::Hierarchical | Policy::ClusterOff => StealOrder::Hierarchical,
            Policy::Flat | Policy::RayonLike => StealOrder::Flat,
        }
    }

    /// Whether the run-time cluster switch is on.
    pub(crate) fn cluster_aware(self) -> bool {
        self != Policy::ClusterOff
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
