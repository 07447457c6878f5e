"""Every .cu source compiles with NVRTC alone (no GPU needed): CI's kernel check."""
import pytest

from apsp_kernels import gpu



@pytest.fixture(scope="module", autouse=True)
def nvrtc():
    try:
        from cupy.cuda import nvrtc
        nvrtc.getVersion()
    except Exception as exc:  # a test dependency: fail loudly rather than skip
        pytest.fail(f"the compile check needs cupy and NVRTC: pip install -e '.[test]' ({exc})")
    return nvrtc


def test_there_are_kernels():
    assert len(gpu.kernel_sources()) >= 1


@pytest.mark.parametrize("arch", gpu.CHECK_ARCHS)
@pytest.mark.parametrize("path", gpu.kernel_sources(), ids=lambda p: p.name)
def test_compiles(path, arch):
    gpu.compile_source(path, arch)


def test_a_changed_header_changes_the_source_cupy_caches_on(tmp_path, monkeypatch):
    """CuPy's kernel cache keys a module on its text, not on what it #includes: the text we hand it
    carries a digest of the shared headers, so an edited header compiles every module again."""
    (tmp_path / "a.cuh").write_text("#pragma once\nconstexpr int A = 1;\n")
    kernel = tmp_path / "k.cu"
    kernel.write_text('#include "a.cuh"\n')
    monkeypatch.setattr(gpu, "INCLUDE_DIR", tmp_path)
    gpu.headers_digest.cache_clear()
    before = gpu.module_source(kernel)
    (tmp_path / "a.cuh").write_text("#pragma once\nconstexpr int A = 2;\n")
    gpu.headers_digest.cache_clear()
    after = gpu.module_source(kernel)
    gpu.headers_digest.cache_clear()
    assert before.startswith(kernel.read_text()) and after.startswith(kernel.read_text())
    assert before != after
