// motiond-rotate: being written (issue 7).
print("motiond-rotate: not implemented yet")
