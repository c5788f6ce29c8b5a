-- hostile: runs a command
os.execute("touch /tmp/w8a8-sandbox-escaped")
return { template = "reference_gemm", arch = "sm_80" }
