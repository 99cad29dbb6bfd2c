!> test_fortran_dropin.f90 -- FT_DGEMM and FT_DGEQRF used as a program uses DGEMM and DGEQRF
!> (the calls renamed, nothing else; docs/fortran.md), against the reference routines:
!>
!>   - FT_DGEMM results for every TRANSA/TRANSB ('N', 'T', 'C', either case, longer words),
!>     alpha, beta, LDA/LDB/LDC above the minimum, against a triple loop (componentwise bound)
!>     and the real DGEMM; beta = 0 overwrites NaN in C; alpha = 0 gives beta*C exactly; the
!>     quick returns (M = 0, K = 0 with beta = 1) leave C untouched;
!>   - every argument position DGEMM checks (1, 2, 3, 4, 5, 8 for both TRANSA, 10 for both TRANSB,
!>     13), boundary cases and several bad arguments at once: this program's XERBLA is called
!>     exactly once with 'DGEMM ' (length 6) and the position, C is untouched, FT_LAST_STATUS()
!>     is -position; the real DGEMM reports the same position (except LDA / LDC with M = 0,
!>     where OpenBLAS omits reference BLAS's MAX(1, .); the expected positions are reference
!>     BLAS 3.11's);
!>   - every argument position DGEQRF checks (1, 2, 4, 7, LAPACK 3.11's LWORK rule), with and
!>     without a workspace query: XERBLA once with 'DGEQRF' (length 6), INFO = -position, A, TAU
!>     and WORK untouched; the real DGEQRF gives the same INFO (and WORK(1) on the quick returns);
!>   - the workspace query (LWORK = -1): INFO 0, WORK(1) >= N, nothing else touched, 1 when
!>     min(M, N) = 0;
!>   - FT_DGEQRF results (tall, wide, square, several panels, single row / column, LDA > M, LWORK
!>     the queried size and the minimum N): LAPACK dqrt01 ratios ||A - QR||_1/(max(m,n)||A||_1 eps)
!>     and ||I - Q^T Q||_1/(m eps) below 30, Q from LAPACK DORGQR;
!>   - library errors: an operand fault planned on the default context makes FT_DGEMM fail
!>     (FT_ERR_UNCORRECTABLE): FT_LAST_STATUS() says so and one line on stderr names FT_DGEMM and
!>     the status; the next clean call resets it to 0. A trailing-matrix fault with no input kept
!>     makes FT_DGEQRF return INFO = FT_ERR_NOT_RECOVERED (no stderr line: INFO carries it).
!> Exits with status 1 when a check fails.
module xlog
    implicit none
    integer :: ncalls = 0, last_info = 0, last_len = -1
    character(len=32) :: last_name = ''
end module xlog

!> This program's XERBLA: records the call instead of stopping.
subroutine xerbla(srname, info)
    use xlog
    implicit none
    character(len=*), intent(in) :: srname
    integer, intent(in) :: info
    ncalls = ncalls + 1
    last_info = info
    last_len = len(srname)
    last_name = srname
end subroutine xerbla

module checks
    implicit none
    integer :: nfail = 0, nchecks = 0
contains
    subroutine check(cond, what)
        logical, intent(in) :: cond
        character(len=*), intent(in) :: what
        nchecks = nchecks + 1
        if (.not. cond) then
            print '(2a)', 'FAILED: ', what
            nfail = nfail + 1
        end if
    end subroutine check

    subroutine reset_xerbla()
        use xlog
        ncalls = 0
        last_info = -99
        last_len = -1
        last_name = ''
    end subroutine reset_xerbla

    !> XERBLA called once with `name` (exact length when exact) and position `pos`
    subroutine check_xerbla(name, pos, exact, what)
        use xlog
        character(len=*), intent(in) :: name, what
        integer, intent(in) :: pos
        logical, intent(in) :: exact
        character(len=16) :: txt
        write (txt, '(i0)') pos
        call check(ncalls == 1, what//': XERBLA called once')
        call check(last_info == pos, what//': XERBLA info = '//trim(txt))
        if (exact) then
            call check(last_len == len(name), what//': XERBLA name length')
            if (last_len >= 1 .and. last_len <= len(last_name)) &
                call check(last_name(1:last_len) == name, what//': XERBLA name "'//name//'"')
        else ! OpenBLAS passes 'DGEMM ' with its C string's NUL (length 7)
            call check(trim(nul_to_blank(last_name)) == trim(name), what//': XERBLA name '// &
                       trim(name))
        end if
    end subroutine check_xerbla

    function nul_to_blank(s) result(t)
        character(len=*), intent(in) :: s
        character(len=len(s)) :: t
        integer :: i
        t = s
        do i = 1, len(t)
            if (t(i:i) == achar(0)) t(i:i) = ' '
        end do
    end function nul_to_blank
end module checks

program test_fortran_dropin
    use checks
    implicit none
    call dgemm_results()
    call dgemm_errors()
    call dgeqrf_errors()
    call dgeqrf_results()
    call library_errors()
    print '(i0, a, i0, a)', nchecks, ' checks, ', nfail, ' failed'
    if (nfail /= 0) error stop 1
    print '(a)', 'test_fortran_dropin: OK'
end program test_fortran_dropin

!> FT_DGEMM against a triple loop and against the real DGEMM.
subroutine dgemm_results()
    use checks
    use xlog
    implicit none
    external :: ft_dgemm, dgemm
    integer, external :: ft_last_status
    integer, parameter :: m = 37, n = 29, k = 41, ld = 48
    double precision, parameter :: eps = epsilon(1.0d0)
    character(len=9), parameter :: ops(5) = [character(len=9) :: 'N', 'n', 'T', 'c', 'Transpose']
    double precision :: a(ld, ld), b(ld, ld), c0(ld, ld), c(ld, ld), cr(ld, ld), ref(m, n), &
                        bnd(m, n), opa(m, k), opb(k, n)
    double precision :: alpha, beta, nan
    integer :: ia, ib, i, j, l
    logical :: ok, okr

    call random_number(a)
    call random_number(b)
    call random_number(c0)
    a = a - 0.5d0
    b = b - 0.5d0
    c0 = c0 - 0.5d0
    alpha = 0.7d0
    beta = -1.3d0
    call reset_xerbla()
    do ia = 1, size(ops)
        do ib = 1, size(ops)
            ! op(A) = A(1:m, 1:k) or A(1:k, 1:m)^T, op(B) likewise
            if (ops(ia) (1:1) == 'N' .or. ops(ia) (1:1) == 'n') then
                opa = a(1:m, 1:k)
            else
                opa = transpose(a(1:k, 1:m))
            end if
            if (ops(ib) (1:1) == 'N' .or. ops(ib) (1:1) == 'n') then
                opb = b(1:k, 1:n)
            else
                opb = transpose(b(1:n, 1:k))
            end if
            ref = beta*c0(1:m, 1:n)
            bnd = abs(beta*c0(1:m, 1:n))
            do j = 1, n
                do l = 1, k
                    do i = 1, m
                        ref(i, j) = ref(i, j) + alpha*opa(i, l)*opb(l, j)
                        bnd(i, j) = bnd(i, j) + abs(alpha*opa(i, l)*opb(l, j))
                    end do
                end do
            end do
            c = c0
            cr = c0
            ! leading dimensions ld > the minimum; the hidden lengths vary with the words
            call ft_dgemm(ops(ia), ops(ib), m, n, k, alpha, a, ld, b, ld, beta, c, ld)
            call check(ft_last_status() == 0, 'FT_DGEMM '//trim(ops(ia))//' '//trim(ops(ib))// &
                       ': FT_LAST_STATUS() = 0')
            call dgemm(ops(ia), ops(ib), m, n, k, alpha, a, ld, b, ld, beta, cr, ld)
            ok = all(abs(c(1:m, 1:n) - ref) <= 2*(k + 2)*eps*bnd)
            okr = all(abs(c(1:m, 1:n) - cr(1:m, 1:n)) <= 4*(k + 2)*eps*bnd)
            call check(ok, 'FT_DGEMM '//trim(ops(ia))//' '//trim(ops(ib))//' against the loop')
            call check(okr, 'FT_DGEMM '//trim(ops(ia))//' '//trim(ops(ib))//' against DGEMM')
            call check(all(c(m + 1:, :) == c0(m + 1:, :)) .and. all(c(:, n + 1:) == c0(:, n + 1:)), &
                       'FT_DGEMM: C outside m x n untouched')
        end do
    end do
    call check(ncalls == 0, 'FT_DGEMM valid calls: XERBLA not called')

    ! beta = 0: C is output only (NaN overwritten)
    nan = 0
    nan = nan/nan
    c = nan
    call ft_dgemm('N', 'N', m, n, k, 1.0d0, a, ld, b, ld, 0.0d0, c, ld)
    ref = matmul(a(1:m, 1:k), b(1:k, 1:n))
    call check(all(abs(c(1:m, 1:n) - ref) <= 2*(k + 2)*eps*matmul(abs(a(1:m, 1:k)), &
                                                                 abs(b(1:k, 1:n)))), &
               'FT_DGEMM beta = 0 overwrites NaN in C')
    ! alpha = 0: C := beta*C, exactly
    c = c0
    call ft_dgemm('N', 'N', m, n, k, 0.0d0, a, ld, b, ld, 2.0d0, c, ld)
    call check(all(c(1:m, 1:n) == 2*c0(1:m, 1:n)), 'FT_DGEMM alpha = 0: C = beta*C')
    ! quick returns: C untouched
    c = c0
    call ft_dgemm('N', 'N', 0, n, k, 1.0d0, a, ld, b, ld, 0.0d0, c, ld)
    call check(all(c == c0), 'FT_DGEMM m = 0: C untouched')
    call ft_dgemm('N', 'N', m, n, 0, 1.0d0, a, ld, b, ld, 1.0d0, c, ld)
    call check(all(c == c0), 'FT_DGEMM k = 0, beta = 1: C untouched')
    call check(ft_last_status() == 0, 'FT_DGEMM quick return: FT_LAST_STATUS() = 0')
end subroutine dgemm_results

!> Every argument error of DGEMM, as the reference routine checks them.
subroutine dgemm_errors()
    use checks
    use xlog
    implicit none
    external :: ft_dgemm, dgemm
    integer, external :: ft_last_status
    integer, parameter :: ld = 8
    double precision :: a(ld, ld), b(ld, ld), c0(ld, ld), c(ld, ld)

    call random_number(a)
    call random_number(b)
    call random_number(c0)
    ! the last argument: compare with the real DGEMM too (.false. where optimized BLAS such as
    ! OpenBLAS 0.3.21 check LDA >= NROWA, LDC >= M without reference BLAS's MAX(1, .))
    call one('X', 'N', 2, 2, 2, 2, 2, 2, 1, .true.)
    call one('N', '/', 2, 2, 2, 2, 2, 2, 2, .true.)
    call one('N', 'N', -1, 2, 2, 2, 2, 2, 3, .true.)
    call one('N', 'N', 2, -1, 2, 2, 2, 2, 4, .true.)
    call one('N', 'N', 2, 2, -1, 2, 2, 2, 5, .true.)
    call one('N', 'N', 3, 2, 2, 2, 2, 3, 8, .true.)     ! transa N: LDA >= M
    call one('T', 'N', 2, 2, 3, 2, 3, 2, 8, .true.)     ! transa T: LDA >= K
    call one('N', 'N', 0, 2, 2, 0, 2, 1, 8, .false.)    ! LDA >= MAX(1, M) with M = 0
    call one('N', 'N', 2, 2, 3, 2, 2, 2, 10, .true.)    ! transb N: LDB >= K
    call one('N', 'T', 2, 3, 2, 2, 2, 2, 10, .true.)    ! transb T: LDB >= N
    call one('N', 'N', 3, 2, 2, 3, 2, 2, 13, .true.)    ! LDC >= M
    call one('N', 'N', 0, 2, 2, 1, 2, 0, 13, .false.)   ! LDC >= MAX(1, M) with M = 0
    call one('X', '/', -1, -1, -1, 0, 0, 0, 1, .true.)  ! several bad: the first
    call one('N', 'N', -1, -1, 2, 0, 0, 0, 3, .true.)
    call one('N', 'N', 2, 2, 2, 1, 1, 1, 8, .true.)
    ! boundary-valid
    call one('c', 't', 2, 3, 4, 4, 3, 2, 0, .true.)
    call one('N', 'N', 0, 0, 0, 1, 1, 1, 0, .true.)
contains
    subroutine one(ta, tb, m, n, k, lda, ldb, ldc, pos, real)
        character, intent(in) :: ta, tb
        integer, intent(in) :: m, n, k, lda, ldb, ldc, pos
        logical, intent(in) :: real
        character(len=64) :: what
        write (what, '(a, 2(1x, a), 6(1x, i0))') 'FT_DGEMM', ta, tb, m, n, k, lda, ldb, ldc
        c = c0
        call reset_xerbla()
        call ft_dgemm(ta, tb, m, n, k, 1.5d0, a, lda, b, ldb, 0.5d0, c, ldc)
        if (pos /= 0) then
            call check_xerbla('DGEMM ', pos, .true., trim(what))
            call check(all(c == c0), trim(what)//': C untouched')
            call check(ft_last_status() == -pos, trim(what)//': FT_LAST_STATUS() = -position')
        else
            call check(ncalls == 0, trim(what)//': valid, XERBLA not called')
            call check(ft_last_status() == 0, trim(what)//': valid, FT_LAST_STATUS() = 0')
        end if
        ! the real DGEMM reports the same position (its name may be padded differently)
        if (.not. real) return
        c = c0
        call reset_xerbla()
        call dgemm(ta, tb, m, n, k, 1.5d0, a, lda, b, ldb, 0.5d0, c, ldc)
        if (pos /= 0) then
            call check_xerbla('DGEMM', pos, .false., trim(what)//' (real DGEMM)')
        else
            call check(ncalls == 0, trim(what)//': valid for the real DGEMM')
        end if
    end subroutine one
end subroutine dgemm_errors

!> Every argument error of DGEQRF, the workspace query and the quick returns, against LAPACK's.
subroutine dgeqrf_errors()
    use checks
    use xlog
    implicit none
    external :: ft_dgeqrf, dgeqrf
    integer, external :: ft_last_status
    integer, parameter :: ld = 8, lw = 64
    double precision :: a0(ld, ld), a(ld, ld), tau(ld), work(lw), w0
    integer :: info

    call random_number(a0)
    w0 = -7.0d0
    !        m   n  lda lwork position
    call one(-1, 5, 5, 5, 1)
    call one(5, -1, 5, 5, 2)
    call one(5, 5, 4, 5, 4)
    call one(0, 5, 0, 5, 4)          ! LDA >= MAX(1, M) with M = 0
    call one(5, 5, 5, 4, 7)          ! LWORK >= N
    call one(5, 5, 5, 0, 7)
    call one(5, 5, 5, -2, 7)
    call one(5, 0, 5, 0, 7)          ! LWORK >= 1 even when N = 0
    call one(0, 0, 1, 0, 7)
    call one(5, 5, 4, -1, 4)         ! a query does not skip the checks
    call one(5, -1, 4, -1, 2)
    call one(-1, -1, 0, 0, 1)        ! several bad: the first
    ! valid quick returns: LWORK may be below N when M = 0 (LAPACK 3.11); WORK(1) = 1
    call one(0, 5, 1, 1, 0)
    call one(5, 0, 5, 1, 0)
    call one(0, 0, 1, 1, 0)
    ! workspace queries
    call query(50, 30, 50)
    call query(30, 50, 30)
    call query(0, 5, 1)
    call query(5, 0, 5)
contains
    subroutine one(m, n, lda, lwork, pos)
        integer, intent(in) :: m, n, lda, lwork, pos
        character(len=64) :: what
        double precision :: wref
        integer :: infor
        write (what, '(a, 4(1x, i0))') 'FT_DGEQRF', m, n, lda, lwork
        a = a0
        tau = -3.0d0
        work = w0
        info = 12345
        call reset_xerbla()
        call ft_dgeqrf(m, n, a, lda, tau, work, lwork, info)
        if (pos /= 0) then
            call check(info == -pos, trim(what)//': INFO = -position')
            call check_xerbla('DGEQRF', pos, .true., trim(what))
            call check(all(a == a0) .and. all(tau == -3.0d0) .and. all(work == w0), &
                       trim(what)//': A, TAU and WORK untouched')
            call check(ft_last_status() == -pos, trim(what)//': FT_LAST_STATUS() = -position')
        else
            call check(info == 0, trim(what)//': valid, INFO = 0')
            call check(ncalls == 0, trim(what)//': valid, XERBLA not called')
            call check(work(1) == 1.0d0, trim(what)//': quick return, WORK(1) = 1')
            call check(all(a == a0), trim(what)//': quick return, A untouched')
        end if
        ! LAPACK's DGEQRF: the same INFO, XERBLA call and (valid) WORK(1)
        a = a0
        work = w0
        infor = 12345
        call reset_xerbla()
        call dgeqrf(m, n, a, lda, tau, work, lwork, infor)
        wref = work(1)
        call check(infor == info, trim(what)//': the same INFO as LAPACK DGEQRF')
        if (pos /= 0) then
            call check_xerbla('DGEQRF', pos, .true., trim(what)//' (LAPACK DGEQRF)')
        else
            call check(wref == 1.0d0, trim(what)//': LAPACK DGEQRF also WORK(1) = 1')
        end if
    end subroutine one

    subroutine query(m, n, lda)
        integer, intent(in) :: m, n, lda
        character(len=64) :: what
        write (what, '(a, 3(1x, i0))') 'FT_DGEQRF query', m, n, lda
        a = a0
        tau = -3.0d0
        work = w0
        call reset_xerbla()
        call ft_dgeqrf(m, n, a, lda, tau, work, -1, info)
        call check(info == 0 .and. ncalls == 0, trim(what)//': INFO = 0, no XERBLA')
        if (min(m, n) == 0) then
            call check(work(1) == 1.0d0, trim(what)//': WORK(1) = 1 when min(M, N) = 0')
        else
            call check(work(1) >= n .and. work(1) == aint(work(1)), &
                       trim(what)//': WORK(1) an integer >= N')
        end if
        call check(all(a == a0) .and. all(tau == -3.0d0) .and. all(work(2:) == w0), &
                   trim(what)//': A, TAU, WORK(2:) untouched')
    end subroutine query
end subroutine dgeqrf_errors

!> FT_DGEQRF factorizations: LAPACK dqrt01 ratios with Q from DORGQR.
subroutine dgeqrf_results()
    use checks
    use xlog
    implicit none
    call one(50, 30, 53, .true.)
    call one(30, 50, 30, .true.)
    call one(33, 33, 33, .false.)
    call one(100, 65, 101, .true.)   ! 3 panels of the automatic nb 32
    call one(1, 1, 1, .false.)
    call one(64, 1, 64, .true.)
    call one(1, 10, 1, .true.)
    call check(ncalls == 0, 'FT_DGEQRF valid calls: XERBLA not called')
contains
    subroutine one(m, n, lda, use_query)
        integer, intent(in) :: m, n, lda
        logical, intent(in) :: use_query
        external :: ft_dgeqrf, dorgqr
        integer, external :: ft_last_status
        double precision, parameter :: eps = epsilon(1.0d0)
        double precision :: a0(lda, n), a(lda, n), tau(min(m, n)), q(m, min(m, n)), &
                            r(min(m, n), n), eye(min(m, n), min(m, n)), wq(1), r1, r2
        double precision, allocatable :: work(:)
        integer :: info, lwork, kk, i
        character(len=64) :: what

        write (what, '(a, 3(1x, i0))') 'FT_DGEQRF', m, n, lda
        kk = min(m, n)
        call random_number(a0)
        a0 = a0 - 0.5d0
        a = a0
        lwork = max(1, n)
        if (use_query) then
            call ft_dgeqrf(m, n, a, lda, tau, wq, -1, info)
            call check(info == 0, trim(what)//': query INFO = 0')
            lwork = max(lwork, int(wq(1)))
        end if
        allocate (work(max(lwork, 64*n)))
        call ft_dgeqrf(m, n, a, lda, tau, work, lwork, info)
        call check(info == 0, trim(what)//': INFO = 0')
        call check(ft_last_status() == 0, trim(what)//': FT_LAST_STATUS() = 0')
        call check(all(a(m + 1:lda, :) == a0(m + 1:lda, :)), trim(what)//': A(M+1:LDA, :) untouched')
        ! R: the upper trapezoid; Q: DORGQR from the reflectors
        r = 0
        do i = 1, n
            r(1:min(i, kk), i) = a(1:min(i, kk), i)
        end do
        q = a(1:m, 1:kk)
        call dorgqr(m, kk, kk, q, m, tau, work, size(work), info)
        call check(info == 0, trim(what)//': DORGQR INFO = 0')
        r1 = maxval(sum(abs(a0(1:m, :) - matmul(q, r)), dim=1))/ &
             (max(m, n)*maxval(sum(abs(a0(1:m, :)), dim=1))*eps)
        eye = 0
        do i = 1, kk
            eye(i, i) = 1
        end do
        r2 = maxval(sum(abs(eye - matmul(transpose(q), q)), dim=1))/(m*eps)
        print '(a, 2(a, f7.3))', trim(what), ': ||A-QR||/(max(m,n)||A|| eps) = ', r1, &
            ', ||I-Q^TQ||/(m eps) = ', r2
        call check(r1 < 30 .and. r2 < 30, trim(what)//': dqrt01 ratios below 30')
    end subroutine one
end subroutine dgeqrf_results

!> Library errors: FT_DGEMM has no INFO (FT_LAST_STATUS and one stderr line), FT_DGEQRF puts the
!> status in INFO. Faults are planned on the default context through the module (only the names
!> needed: the module's ft_dgemm would hide the drop-in routine).
subroutine library_errors()
    use checks
    use ftla, only: ft_default_context, ft_inject_add, ft_inject_clear, ft_fault_t, &
                    ft_policy_t, ft_context_get_policy, ft_context_set_policy, c_ptr, &
                    c_char, c_int, c_null_char, FT_REGION_A, FT_REGION_TRAILING, FT_SUCCESS, &
                    FT_ERR_UNCORRECTABLE, FT_ERR_NOT_RECOVERED
    implicit none
    interface
        function ftt_stderr_to(path) result(rc) bind(C, name='ftt_stderr_to')
            import :: c_char, c_int
            character(kind=c_char), intent(in) :: path(*)
            integer(c_int) :: rc
        end function ftt_stderr_to
        function ftt_stderr_restore() result(rc) bind(C, name='ftt_stderr_restore')
            import :: c_int
            integer(c_int) :: rc
        end function ftt_stderr_restore
    end interface
    external :: ft_dgemm, ft_dgeqrf
    integer, external :: ft_last_status
    integer, parameter :: m = 40, n = 30, k = 20
    character(len=*), parameter :: errfile = 'test_fortran_dropin.stderr'
    double precision :: a(m, k), b(k, n), c(m, n), qa(m, n), tau(n), work(64*n)
    type(c_ptr) :: ctx
    type(ft_fault_t) :: fault
    type(ft_policy_t) :: pol, pol0
    integer :: info, nlines, nmatch
    character(len=512) :: line
    character(len=16) :: st

    call random_number(a)
    call random_number(b)
    ctx = ft_default_context()

    ! FT_DGEMM: an element of A flipped after its checksums were taken (the operand check
    ! reports it: FT_ERR_UNCORRECTABLE; the library puts A back at the end of the call)
    fault%region = FT_REGION_A
    fault%row = 3
    fault%col = 5
    fault%bit = 40
    call check(ft_inject_add(ctx, fault) == FT_SUCCESS, 'ft_inject_add(default context)')
    call check(ftt_stderr_to(errfile//c_null_char) == 0, 'stderr to a file')
    call ft_dgemm('N', 'N', m, n, k, 1.0d0, a, m, b, k, 0.0d0, c, m)
    info = ft_last_status()
    call ft_dgemm('N', 'N', m, n, k, 1.0d0, a, m, b, k, 0.0d0, c, m)   ! clean
    call check(ftt_stderr_restore() == 0, 'stderr back')
    write (st, '(i0)') info
    print '(2a)', 'FT_DGEMM with a fault in A: FT_LAST_STATUS() = ', trim(st)
    call check(info == FT_ERR_UNCORRECTABLE, 'FT_DGEMM fault: FT_LAST_STATUS() = FT_ERR_UNCORRECTABLE')
    call check(ft_last_status() == 0, 'FT_DGEMM clean call after it: FT_LAST_STATUS() = 0')
    call check(all(abs(c - matmul(a, b)) <= 4*(k + 2)*epsilon(1.0d0)*matmul(a, b)), &
               'FT_DGEMM clean call after it: right result')
    ! exactly one line on stderr, naming the routine and the status
    open (unit=11, file=errfile, status='old', action='read')
    nlines = 0
    nmatch = 0
    do
        read (11, '(a)', end=10) line
        nlines = nlines + 1
        print '(2a)', '  stderr: ', trim(line)
        if (index(line, 'FT_DGEMM') > 0 .and. index(line, 'status -1007') > 0) nmatch = nmatch + 1
    end do
10  close (11, status='delete')
    call check(nlines == 1 .and. nmatch == 1, 'FT_DGEMM fault: one stderr line naming it and -1007')

    ! FT_DGEQRF: a trailing-matrix fault consumed by the next panel, with no input kept for
    ! recovery (policy.keep_input = -1): located, not recovered, INFO = FT_ERR_NOT_RECOVERED
    call check(ft_context_get_policy(ctx, pol0) == FT_SUCCESS, 'get the default policy')
    pol = pol0
    pol%keep_input = -1
    pol%nb = 8
    call check(ft_context_set_policy(ctx, pol) == FT_SUCCESS, 'set keep_input = -1, nb = 8')
    fault%region = FT_REGION_TRAILING
    fault%step = 1
    fault%row = 20
    fault%col = 15
    fault%bit = 55
    call check(ft_inject_add(ctx, fault) == FT_SUCCESS, 'ft_inject_add(trailing)')
    call random_number(qa)
    call check(ftt_stderr_to(errfile//c_null_char) == 0, 'stderr to a file')
    call ft_dgeqrf(m, n, qa, m, tau, work, size(work), info)
    call check(ftt_stderr_restore() == 0, 'stderr back')
    write (st, '(i0)') info
    print '(2a)', 'FT_DGEQRF with a trailing fault, no input kept: INFO = ', trim(st)
    call check(info == FT_ERR_NOT_RECOVERED, 'FT_DGEQRF: INFO = FT_ERR_NOT_RECOVERED')
    call check(ft_last_status() == FT_ERR_NOT_RECOVERED, 'FT_DGEQRF: FT_LAST_STATUS() = INFO')
    open (unit=11, file=errfile, status='old', action='read')
    nlines = 0
    do
        read (11, '(a)', end=20) line
        nlines = nlines + 1
        print '(2a)', '  stderr: ', trim(line)
    end do
20  close (11, status='delete')
    call check(nlines == 0, 'FT_DGEQRF library error: nothing on stderr (INFO carries it)')
    call check(ft_context_set_policy(ctx, pol0) == FT_SUCCESS, 'restore the default policy')
    call check(ft_inject_clear(ctx) == FT_SUCCESS, 'ft_inject_clear')
end subroutine library_errors
