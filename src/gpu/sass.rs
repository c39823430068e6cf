//! The machine code a kernel became, as `nvdisasm` prints it: the innermost
//! loop found (the shortest backward branch) and its instructions counted,
//! to hold against the kernel's declaration.

use super::kernels::GpuKernel;

/// One instruction: its address and opcode (`FFMA`, `LDG.E.128`), and the
/// label its branch goes to.
#[derive(Debug, Clone, PartialEq)]
struct Inst {
    addr: u64,
    opcode: String,
    operands: Vec<String>,
    target: Option<String>,
}

/// The opcodes of the innermost loop of one kernel's disassembly (the
/// instructions from a label to the branch back to it, of the shortest
/// such span), or None where it has no loop. The loop's own control is
/// left out: the compare before the branch, and what writes the registers
/// it compares (the trip counter), so a kernel's adds are its work alone.
pub fn innermost_loop(disasm: &str) -> Option<Vec<String>> {
    let mut labels: Vec<(String, u64)> = Vec::new();
    let mut insts: Vec<Inst> = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    for line in disasm.lines() {
        let t = line.trim();
        if let Some(l) = t
            .strip_suffix(':')
            .filter(|l| l.starts_with('.') && !l.contains(' '))
        {
            pending.push(l.to_string());
            continue;
        }
        let Some(inst) = parse_inst(t) else { continue };
        labels.extend(pending.drain(..).map(|l| (l, inst.addr)));
        insts.push(inst);
    }
    let mut best: Option<(u64, u64)> = None;
    for i in &insts {
        let Some(to) = i
            .target
            .as_ref()
            .and_then(|t| labels.iter().find(|(l, _)| l == t))
        else {
            continue;
        };
        if to.1 < i.addr && best.is_none_or(|(a, b)| i.addr - to.1 < b - a) {
            best = Some((to.1, i.addr));
        }
    }
    let (from, to) = best?;
    let body: Vec<Inst> = insts
        .into_iter()
        .filter(|i| (from..=to).contains(&i.addr))
        .collect();
    // The compare before the branch, and the last write before it of each register it reads.
    let Some(cmp) = body.iter().rposition(|i| i.opcode.starts_with("ISETP")) else {
        return Some(body.into_iter().map(|i| i.opcode).collect());
    };
    let mut control = vec![cmp];
    for reg in body[cmp]
        .operands
        .iter()
        .filter(|o| o.starts_with('R') || o.starts_with("UR"))
    {
        if let Some(w) = body[..cmp]
            .iter()
            .rposition(|i| i.operands.first() == Some(reg))
        {
            control.push(w);
        }
    }
    let body = body
        .into_iter()
        .enumerate()
        .filter(|(n, _)| !control.contains(n));
    Some(body.map(|(_, i)| i.opcode).collect())
}

fn parse_inst(t: &str) -> Option<Inst> {
    let rest = t.strip_prefix("/*")?;
    let (addr, rest) = rest.split_once("*/")?;
    let addr = u64::from_str_radix(addr.trim(), 16).ok()?;
    let code = rest.split("/*").next()?.trim().trim_end_matches(';').trim();
    let mut words = code.split_whitespace().peekable();
    if words.peek().is_some_and(|w| w.starts_with('@')) {
        words.next();
    }
    let opcode = words.next()?.to_string();
    let operands = words
        .collect::<Vec<_>>()
        .join(" ")
        .split(',')
        .map(|o| o.trim().to_string())
        .collect();
    let target = code
        .split_once("`(")
        .and_then(|(_, r)| r.split_once(')'))
        .map(|(l, _)| l.to_string());
    Some(Inst {
        addr,
        opcode,
        operands,
        target,
    })
}

/// Whether `opcode` is of the declared pattern: of one of its alternatives
/// (`IADD3|IMAD.IADD`: the assembler spreads integer adds over two pipes),
/// each the same first part and every other part among the opcode's parts
/// (`LDG.128` is `LDG.E.128.STRONG.GPU`; `HFMA2.BF16_V2` is not `HFMA2`).
pub fn matches(opcode: &str, pattern: &str) -> bool {
    pattern.split('|').any(|p| matches_one(opcode, p))
}

fn matches_one(opcode: &str, pattern: &str) -> bool {
    let (mut o, mut p) = (opcode.split('.'), pattern.split('.'));
    if o.next() != p.next() {
        return false;
    }
    let parts: Vec<&str> = o.collect();
    p.all(|x| parts.contains(&x))
}

/// How the loop's instructions differ from the declaration: one line per
/// declared opcode whose count is not the declared one (empty when they
/// agree).
pub fn disagreements(kernel: &GpuKernel, loop_ops: &[String]) -> Vec<String> {
    let declared = &kernel.sass;
    declared
        .iter()
        .filter_map(|(pat, want)| {
            let got = loop_ops.iter().filter(|o| matches(o, pat)).count();
            (got != *want as usize).then(|| {
                format!(
                    "{}: {want} {pat} declared a trip, {got} in the loop's SASS ({} instructions)",
                    kernel.name,
                    loop_ops.len()
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DISASM: &str = "
        .text.fma_sp:
        /*0000*/                   LDC R1, c[0x0][0x28] ;                  /* 0x00000a00ff017b82 */
        /*0010*/                   S2R R0, SR_TID.X ;                      /* 0x0000000000007919 */
.L_x_0:
        /*0020*/                   FFMA R5, R5, R2, R3 ;                   /* 0x0000000205057223 */
        /*0030*/                   FFMA R6, R6, R2, R3 ;                   /* 0x0000000206067223 */
        /*0040*/                   IADD3 R4, R4, 0x1, RZ ;                 /* 0x0000000104047810 */
        /*0050*/                   ISETP.GE.U32.AND P0, PT, R4, R7, PT ;   /* 0x000000070400720c */
        /*0060*/              @!P0 BRA `(.L_x_0) ;                         /* 0xfffffffc00e88947 */
        /*0070*/                   LDG.E.128.CONSTANT R8, desc[UR4][R2.64] ; /* 0x0000000402087981 */
        /*0080*/                   EXIT ;                                  /* 0x000000000000794d */
.L_x_1:
        /*0090*/                   BRA `(.L_x_1);                          /* 0xfffffff000007947 */
";

    #[test]
    fn the_shortest_backward_branch_is_the_loop() {
        // The branch to itself at 0x90 is the trap after EXIT, not a loop.
        let ops = innermost_loop(DISASM).unwrap();
        // The counter's add and the compare are the loop's control, not its work.
        assert_eq!(ops, vec!["FFMA", "FFMA", "BRA"]);
        assert_eq!(
            innermost_loop(&DISASM.replace("BRA `(.L_x_0)", "NOP")),
            None
        );
    }

    #[test]
    fn patterns_match_by_parts() {
        assert!(matches("LDG.E.128.CONSTANT", "LDG.128"));
        assert!(!matches("LDG.E.64", "LDG.128"));
        assert!(matches("HFMA2.BF16_V2", "HFMA2") && !matches("HFMA2", "HFMA2.BF16"));
        assert!(matches("HMMA.16816.F32.BF16", "HMMA.16816.F32.BF16"));
        assert!(!matches("FFMA", "DFMA"));
        assert!(matches("IMAD.IADD", "IADD3|IMAD.IADD") && matches("IADD3", "IADD3|IMAD.IADD"));
        assert!(!matches("IMAD", "IADD3|IMAD.IADD"));
    }
}
