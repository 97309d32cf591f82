import COpenSSL
let opensslVersion = OpenSSL_version_num()
