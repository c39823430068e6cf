//! A STREAM-like triad inside a region, for `carmbench profile` and its
//! tests: `region_triad N R` runs a[i] = b[i] + 3 c[i] over N doubles R
//! times, each time in the region "triad": 2 N flops and 24 N bytes
//! requested per call.

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("usage: region_triad N R"))
        .collect();
    let (n, r) = (args[0], args[1]);
    let mut a = vec![1.0f64; n];
    let b = vec![2.0f64; n];
    let c = vec![3.0f64; n];
    for _ in 0..r {
        let _region = carmbench::Region::begin("triad");
        for ((x, y), z) in a.iter_mut().zip(&b).zip(&c) {
            *x = y + 3.0 * z;
        }
    }
    println!("checksum {}", a[n / 2] as i64);
}
