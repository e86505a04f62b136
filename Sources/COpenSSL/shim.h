/* COpenSSL: libcrypto's key, certificate and PEM headers for the Swift module Web, which makes the camera's DTLS and
   HTTPS certificates with them. Nothing here but the includes: every call it makes is a plain function Swift can call. */
#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#endif
