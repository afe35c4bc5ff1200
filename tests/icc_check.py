# icc_check.py: the PDF/A output intent's sRGB profile, read by Little CMS (liblcms2,
# which poppler already depends on) through ctypes: it opens, it is an RGB
# display profile, and sRGB through it comes back as sRGB within 2 levels.
#   python3 tests/icc_check.py PROFILE.icc
import ctypes, sys
lc = ctypes.CDLL("liblcms2.so.2")
lc.cmsOpenProfileFromFile.restype = ctypes.c_void_p
lc.cmsOpenProfileFromFile.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
lc.cmsCreate_sRGBProfile.restype = ctypes.c_void_p
lc.cmsCreateTransform.restype = ctypes.c_void_p
lc.cmsCreateTransform.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32]
lc.cmsDoTransform.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32]
lc.cmsGetColorSpace.argtypes = [ctypes.c_void_p]
lc.cmsGetDeviceClass.argtypes = [ctypes.c_void_p]
p = lc.cmsOpenProfileFromFile(sys.argv[1].encode(), b"r")
assert p, "lcms cannot open the profile"
assert lc.cmsGetColorSpace(p) == 0x52474220, hex(lc.cmsGetColorSpace(p))   # 'RGB '
assert lc.cmsGetDeviceClass(p) == 0x6D6E7472                                 # 'mntr'
TYPE_RGB_8 = (4 << 16) | (3 << 3) | 1
t = lc.cmsCreateTransform(p, TYPE_RGB_8, lc.cmsCreate_sRGBProfile(), TYPE_RGB_8, 1, 0)
assert t, "no transform"
worst = 0
for rgb in [(0,0,0),(255,255,255),(128,64,200),(10,200,30),(250,5,120)]:
    src = (ctypes.c_uint8 * 3)(*rgb); dst = (ctypes.c_uint8 * 3)()
    lc.cmsDoTransform(t, src, dst, 1)
    worst = max(worst, max(abs(a - b) for a, b in zip(rgb, dst)))
print("worst", worst)
assert worst <= 2, worst
