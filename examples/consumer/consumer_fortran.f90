!> consumer_fortran.f90 -- a Fortran program built against an installed ftla: the module (ftla.mod
!> and libftla_fortran) and the drop-in FT_DGEQRF (scripts/test-install.sh: CMake and pkg-config
!> ftla-fortran). ft_dgemm against matmul, FT_DGEQRF's R against R^T R = A^T A. Prints
!> "consumer_fortran: OK" or stops with a non-zero status.
program consumer_fortran
    use ftla
    implicit none
    integer(c_int), parameter :: m = 50, n = 30, k = 20
    real(c_double) :: a(m, k), b(k, n), c(m, n), r(m, n), rtr(n, n), ctc(n, n)
    integer(c_int) :: st, major, minor, j

    call ft_version(major, minor)
    if (major /= FTLA_VERSION_MAJOR .or. minor /= FTLA_VERSION_MINOR) error stop 'version'
    call random_number(a)
    call random_number(b)
    st = ft_dgemm('N', 'N', m, n, k, 1.0_c_double, a, m, b, k, 0.0_c_double, c, m)
    if (st /= FT_SUCCESS) error stop 'ft_dgemm status'
    if (maxval(abs(c - matmul(a, b))) > 4*(k + 2)*epsilon(1.0_c_double)*maxval(matmul(a, b))) &
        error stop 'ft_dgemm result'
    r = c
    call factor(r, m, n)
    rtr = 0
    do j = 1, n
        rtr(1:j, j) = r(1:j, j)
    end do
    rtr = matmul(transpose(rtr), rtr)
    ctc = matmul(transpose(c), c)
    if (maxval(abs(rtr - ctc)) > 30*m*epsilon(1.0_c_double)*sum(c*c)) error stop 'FT_DGEQRF R'
    print '(a)', 'consumer_fortran: OK'
end program consumer_fortran

!> the drop-in FT_DGEQRF, called as DGEQRF would be (no `use ftla` in this scope)
subroutine factor(x, m, n)
    implicit none
    integer, intent(in) :: m, n
    double precision, intent(inout) :: x(m, n)
    double precision :: tau(n), work(64*n)
    integer :: info
    external :: ft_dgeqrf
    call ft_dgeqrf(m, n, x, m, tau, work, 64*n, info)
    if (info /= 0) error stop 'FT_DGEQRF info'
end subroutine factor
