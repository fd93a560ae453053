//! The GPU a kernel is planned for: its SM count and the per-SM and per-CTA limits that decide
//! how many CTAs fit on an SM, and the one occupancy model every family's geometry, persistent
//! grid and cost model use ([`DeviceLimits::ctas_per_sm`]). The numbers are a description of a
//! device, not literals in the families: the CUDA backend builds one from the device it opened
//! (`DeviceLimits::with_sms`), everything else plans for [`DeviceLimits::H200`].

/// Limits of one GPU that kernel planning depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DeviceLimits {
    /// Streaming multiprocessors.
    pub sms: u32,
    /// Shared memory of one SM, bytes (what resident CTAs share).
    pub smem_per_sm: u32,
    /// Largest dynamic shared memory one CTA may use (after the opt-in), bytes.
    pub smem_per_cta: u32,
    /// Shared memory the system reserves per resident CTA, bytes.
    pub smem_reserved_per_cta: u32,
    /// 32-bit registers of one SM.
    pub regs_per_sm: u32,
    /// Largest register count of one thread (ptxas maximum).
    pub regs_per_thread: u32,
    /// Registers are allocated per thread in multiples of this (256 per warp).
    pub reg_granule: u32,
    /// Resident threads of one SM.
    pub threads_per_sm: u32,
    /// Resident CTAs of one SM.
    pub ctas_per_sm: u32,
}

impl DeviceLimits {
    /// Largest thread-block cluster (CTAs) a kernel may declare without the non-portable
    /// cluster-size opt-in (sm_90): what the cluster split (`sk{n}c`) can span.
    pub const PORTABLE_CLUSTER: u32 = 8;

    /// Largest thread-block cluster sm_90 runs at all, with the non-portable opt-in
    /// (`CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED`, which the CUDA backend sets on a
    /// launch whose `Launch::cluster` exceeds [`DeviceLimits::PORTABLE_CLUSTER`]). Whether a
    /// kernel's cluster of that size fits a GPC depends on its CTAs' resources; a launch that
    /// does not fit fails with the driver's message.
    pub const MAX_CLUSTER: u32 = 16;

    /// NVIDIA H200 SXM (sm_90): 132 SMs, 228 KB of shared memory per SM of which 227 KB for one
    /// CTA and 1 KB reserved per CTA, 64 K registers, 2048 threads and 32 CTAs per SM.
    pub const H200: DeviceLimits = DeviceLimits {
        sms: 132,
        smem_per_sm: 233_472,
        smem_per_cta: 232_448,
        smem_reserved_per_cta: 1024,
        regs_per_sm: 65_536,
        regs_per_thread: 255,
        reg_granule: 8,
        threads_per_sm: 2048,
        ctas_per_sm: 32,
    };

    /// The H200 limits with another SM count (a device of the same architecture, e.g. a part
    /// with fewer SMs enabled, or a MIG slice).
    pub fn with_sms(self, sms: u32) -> DeviceLimits {
        DeviceLimits {
            sms: sms.max(1),
            ..self
        }
    }

    /// CTAs of `threads` threads using `smem_bytes` of dynamic shared memory and `regs`
    /// registers per thread that are resident on one SM at once: the minimum over shared memory
    /// (each CTA also takes the reserved bytes), threads and registers (rounded up to the
    /// allocation granule), at least 1 and at most the per-SM CTA limit.
    pub fn ctas_per_sm(&self, smem_bytes: u64, threads: u32, regs: u32) -> u64 {
        let threads = threads.max(1) as u64;
        let granule = self.reg_granule.max(1);
        let regs = regs.clamp(1, self.regs_per_thread);
        // Rounded up to the granule: by a mask where it is a power of two (every device's: a
        // division fewer on `auto`'s path, the same number).
        let regs = if granule.is_power_of_two() {
            (regs + (granule - 1)) & !(granule - 1)
        } else {
            regs.div_ceil(granule) * granule
        };
        let by_smem = self.smem_per_sm as u64 / (smem_bytes + self.smem_reserved_per_cta as u64);
        let by_threads = self.threads_per_sm as u64 / threads;
        let by_regs = self.regs_per_sm as u64 / (regs as u64 * threads);
        by_smem
            .min(by_threads)
            .min(by_regs)
            .clamp(1, self.ctas_per_sm as u64)
    }

    /// CTAs of one full wave: [`DeviceLimits::ctas_per_sm`] on every SM.
    pub fn wave(&self, smem_bytes: u64, threads: u32, regs: u32) -> u64 {
        self.sms as u64 * self.ctas_per_sm(smem_bytes, threads, regs)
    }
}

impl Default for DeviceLimits {
    fn default() -> Self {
        DeviceLimits::H200
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn occupancy_is_the_tightest_limit() {
        let d = DeviceLimits::H200;
        // 128 threads, 64 KB: three CTAs by shared memory (3 x 65 KB <= 228 KB).
        assert_eq!(d.ctas_per_sm(65_536, 128, 64), 3);
        // 256 threads at 128 registers: 2 by registers (256 x 128 x 2 = 64 K).
        assert_eq!(d.ctas_per_sm(0, 256, 128), 2);
        // registers round up to 8: 121 counts as 128.
        assert_eq!(d.ctas_per_sm(0, 256, 121), 2);
        assert_eq!(d.ctas_per_sm(0, 256, 120), 2);
        assert_eq!(d.ctas_per_sm(0, 1024, 32), 2); // threads
        assert_eq!(d.ctas_per_sm(0, 32, 16), 32); // the CTA limit
        assert_eq!(d.ctas_per_sm(300_000, 128, 32), 1); // never below one
        assert_eq!(d.with_sms(66).wave(0, 256, 128), 132);
    }
}
