//! The one place that dispatches on [`Family`]: the implementation of each family. Admission,
//! the pool catalogue and `auto` reach a family only through here.

use crate::config::Family;
use crate::family::KernelFamily;

/// The implementation of a family.
pub fn of(family: Family) -> &'static dyn KernelFamily {
    match family {
        Family::Igemm => &crate::igemm::Igemm,
        Family::Direct => &crate::direct::Direct,
    }
}
