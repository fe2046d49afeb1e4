"""labkit.profiling.sass on the SASS numba-cuda dumped on the H200 (tests/fixtures/h200-probe)."""

from pathlib import Path

import pytest

from labkit.profiling import sass

PROBE = Path(__file__).resolve().parents[1] / "fixtures" / "h200-probe"
NAMES = ("coalesced", "strided", "c128", "spill")
#: What numba-cuda prints when nvdisasm is missing (numba_cuda/numba/cuda/codegen.py).
NVDISASM_MISSING = (
    "nvdisasm was not found or could not be executed. It is included with the CUDA toolkit: "
    "install the toolkit on your system or install a Python-packaged toolkit in this environment "
    "(for example cuda-toolkit with the nvdisasm extra).\n"
)


@pytest.fixture(scope="module")
def facts():
    return {name: sass.read_sass((PROBE / f"sass_{name}.txt").read_text()) for name in NAMES}


def test_only_instruction_lines_count():
    text = (PROBE / "sass_coalesced.txt").read_text()
    assert '/*0030*/ \t.string\t"ptxas"' in text
    ops = sass.opcodes(text)
    assert ops[0] == "LDC" and "EXIT" in ops
    assert all(op[0].isalpha() and op[0].isupper() for op in ops)
    assert ops.count("LDG.E") == 1 and ops.count("STG.E") == 1


def test_copies_load_32_bits_per_thread(facts):
    assert facts["coalesced"].global_loads_by_bits == {32: 1}
    assert facts["strided"].global_loads_by_bits == {32: 1}


def test_complex128_is_read_as_two_64_bit_loads_not_one_128(facts):
    c128 = facts["c128"]
    assert c128.global_loads_by_bits == {64: 2}
    assert not c128.wide_loads


def test_only_the_spill_kernel_touches_local_memory(facts):
    for name in NAMES:
        assert facts[name].spills is (name == "spill")
    assert facts["spill"].local_loads == 8
    assert facts["spill"].local_stores == 88          # 24 STL and 64 STL.128 in the file
    assert facts["coalesced"].local_loads == facts["coalesced"].local_stores == 0


def test_no_tensor_cores_no_async_copies_no_ffma_in_the_probe(facts):
    for fact in facts.values():
        assert fact.tensor_core == 0 and fact.async_copies == 0 and fact.ffma == 0
    assert facts["strided"].instructions > facts["coalesced"].instructions   # the 64-bit modulo


def test_chapter_patterns_on_synthetic_lines():
    text = "\n".join([
        "        /*0100*/                   HMMA.16816.F32 R4, R8, R12, R4 ;",
        "        /*0110*/               @!P0 LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;",
        "        /*0120*/                   LDG.E.U8 R9, desc[UR4][R2.64] ;",
        "        /*0130*/                   LDGSTS.E.BYPASS.128 [R3], desc[UR4][R4.64] ;",
        "        /*0140*/                   UTMALDG.2D [UR8], [UR4] ;",
        "        /*0150*/                   FFMA R0, R1, R2, R0 ;",
        "        /*0160*/                   { FFMA R5, R6, R7, R5 ;",
        "        /*0170*/                   QGMMA.64x128x32.F32.E4M3.E4M3 gdesc[UR4], R24, gsb0 ;",
        "        /*0180*/                   STL [R1+0x4], R2 ;",
        "  .section .text.kernel",
        "        /*0190*/ \t.string\t\"LDG.E.128\"",
    ])
    fact = sass.read_sass(text)
    assert fact.global_loads_by_bits == {8: 1, 128: 1}
    assert fact.wide_loads
    assert fact.async_copies == 2
    assert fact.tensor_core == 2
    assert fact.ffma == 2
    assert fact.local_stores == 1 and fact.spills
    assert fact.instructions == 9


def test_facts_round_trip_through_json(facts):
    for fact in facts.values():
        assert sass.SassFacts.model_validate_json(fact.model_dump_json(), strict=True) == fact


class FakeKernel:
    """Stands in for a Numba dispatcher: inspect_sass() answers or raises."""

    def __init__(self, answer):
        self.answer = answer

    def inspect_sass(self):
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_dump_sass_joins_the_signatures():
    assert sass.dump_sass(FakeKernel({"(float32[::1],)": "A", "(float64[::1],)": "B"})) == "A\nB"
    assert sass.dump_sass(FakeKernel("A")) == "A"


def test_dump_sass_without_nvdisasm_is_one_clear_line():
    with pytest.raises(sass.SassError) as caught:
        sass.dump_sass(FakeKernel(RuntimeError(NVDISASM_MISSING)))
    message = str(caught.value)
    assert message.startswith("nvdisasm not found") and "\n" not in message


def test_dump_sass_other_failures():
    with pytest.raises(sass.SassError, match="^could not read the SASS: cubin missing$"):
        sass.dump_sass(FakeKernel(RuntimeError("cubin missing\ndetails")))
    with pytest.raises(sass.SassError, match="not compiled yet"):
        sass.dump_sass(FakeKernel({}))
    with pytest.raises(sass.SassError, match="CUDA simulator"):
        sass.dump_sass(object())


def test_stored_facts_give_back_the_answers(facts):
    stored = sass.SassFacts.model_validate_json(facts["spill"].model_dump_json(), strict=True)
    assert stored.spills is True and stored.wide_loads is False
    assert stored.global_loads_by_bits == {32: 6}


def test_widths_read_the_same_on_every_architecture_s_spelling():
    # Volta/Turing add .SYS and .U to their loads; Blackwell loads 256 bits (LDG.E.ENL2.256); Ampere on
    # spell them plainly. The chapter's question, how wide, has one answer whatever the spelling.
    from labkit.profiling.sass import read_memory_widths

    text = "\n".join(f"        /*{i:04x}*/                   {op} R2, [R4.64] ;" for i, op in enumerate((
        "LDG.E.128.SYS", "LDG.E.SYS", "LDG.E.64.CONSTANT", "LDG.E.ENL2.256.CONSTANT", "LDS.U.128", "LDS.128",
        "STS.64", "STG.E.128.SYS", "STG.E.STRONG.GPU")))
    widths = read_memory_widths(text)
    assert widths.global_loads_by_bits == {32: 1, 64: 1, 128: 1, 256: 1}
    assert widths.shared_loads_by_bits == {128: 2} and widths.shared_stores_by_bits == {64: 1}
    assert widths.global_stores_by_bits == {32: 1, 128: 1}


#: FFMA lines as nvdisasm prints them (the loop of lab 03's one-chain kernel, with ``a`` in a register
#: and as an immediate, and of its eight-chain kernel; ptxas 13.5 for sm_90 on numba-cuda's PTX).
FFMA_LINES = """\
        /*0650*/                   FFMA R6, R6, R4, R5 ;                           /* 0x0000000406067223 */
        /*0660*/                   IADD3 R0, P1, R8, R7, RZ ;                      /* 0x0000000708007210 */
        /*04b0*/                   FFMA R10, R10, R4.reuse, R5.reuse ;             /* 0x000000040a0a7223 */
        /*0700*/                   FFMA R7, R7, 0.99900001287460327148, R0 ;       /* 0x3f7fbe7707077423 */
        /*0710*/                   FFMA R7, R7, c[0x0][0x218], R0 ;                /* 0x0000860007077623 */
        /*0720*/              @!P0 FFMA R2, -R3, R4, RZ ;                          /* 0x0000000403028223 */
        /*0730*/                   FFMA.FTZ R2, |R3|, R4, R5 ;                     /* 0x0000000403027223 */
"""


def test_an_ffma_reads_three_registers_only_when_no_source_is_an_immediate_a_constant_or_rz():
    found = sass.read_ffma_operands(FFMA_LINES)
    assert (found.ffma, found.three_register, found.reused) == (6, 3, 1)
    assert sass.read_ffma_operands("        /*0660*/   IADD3 R0, P1, R8, R7, RZ ;\n").ffma == 0
