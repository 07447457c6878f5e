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
