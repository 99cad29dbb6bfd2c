!> test_fortran_gpu — the ftla module's _gpu routines on device memory (issue 11 item 3; the
!> GPU half of test_fortran_module): ft_dgemm_gpu and ft_dgemm_gpu_ex (a planned fault in C
!> corrected, the report on the CUDA backend), ft_dgeqrf_gpu_ex (R against ft_dgeqrf of the same
!> matrix on the host; a planned fault in the trailing matrix corrected), ft_dgels_gpu (the
!> least-squares solution against ft_dgels on the host). Device memory through
!> test_fortran_devmem.c. Exits 77 (skipped) without a usable GPU.
program test_fortran_gpu
    use, intrinsic :: iso_c_binding
    use ftla
    implicit none
    interface
        function ftg_usable() result(ok) bind(C, name='ftg_usable')
            import :: c_int
            integer(c_int) :: ok
        end function ftg_usable
        function ftg_alloc(bytes) result(p) bind(C, name='ftg_alloc')
            import :: c_ptr, c_size_t
            integer(c_size_t), value :: bytes
            type(c_ptr) :: p
        end function ftg_alloc
        function ftg_put(d, h, bytes) result(st) bind(C, name='ftg_put')
            import :: c_ptr, c_size_t, c_int
            type(c_ptr), value :: d, h
            integer(c_size_t), value :: bytes
            integer(c_int) :: st
        end function ftg_put
        function ftg_get(h, d, bytes) result(st) bind(C, name='ftg_get')
            import :: c_ptr, c_size_t, c_int
            type(c_ptr), value :: h, d
            integer(c_size_t), value :: bytes
            integer(c_int) :: st
        end function ftg_get
        subroutine ftg_free(d) bind(C, name='ftg_free')
            import :: c_ptr
            type(c_ptr), value :: d
        end subroutine ftg_free
    end interface
    integer :: nfail = 0, npass = 0
    real(c_double), parameter :: eps = epsilon(1.0_c_double)

    if (ftg_usable() == 0 .or. ft_cuda_available() == 0) then
        print '(a)', 'SKIP: no usable CUDA device; test_fortran_gpu not run'
        stop 77
    end if
    call gemm()
    call geqrf()
    call gels()
    print '(i0,a,i0,a)', npass, ' passed, ', nfail, ' failed'
    if (nfail > 0) error stop 1

contains

    subroutine check(ok, what)
        logical, intent(in) :: ok
        character(*), intent(in) :: what
        if (ok) then
            npass = npass + 1
        else
            nfail = nfail + 1
            print '(2a)', 'FAILED: ', what
        end if
    end subroutine check

    function dev(bytes) result(p)
        integer(c_size_t), intent(in) :: bytes
        type(c_ptr) :: p
        p = ftg_alloc(bytes)
        call check(c_associated(p), 'device allocation')
    end function dev

    subroutine gemm()
        integer(c_int), parameter :: m = 300, n = 260, k = 190
        real(c_double), allocatable, target :: a(:, :), b(:, :), c(:, :), r(:, :)
        type(c_ptr) :: da, db, dc, ctx
        type(ft_report_t) :: rep
        type(ft_fault_t) :: f
        integer(c_int) :: st
        integer(c_size_t) :: sa, sb, sc
        real(c_double) :: tol
        allocate(a(m, k), b(k, n), c(m, n), r(m, n))
        call random_number(a)
        call random_number(b)
        call random_number(c)
        sa = 8_c_size_t * m * k
        sb = 8_c_size_t * k * n
        sc = 8_c_size_t * m * n
        da = dev(sa)
        db = dev(sb)
        dc = dev(sc)
        call check(ftg_put(da, c_loc(a), sa) == 0 .and. ftg_put(db, c_loc(b), sb) == 0 .and. &
                   ftg_put(dc, c_loc(c), sc) == 0, 'copies to the device')
        r = 2.0_c_double * matmul(a, b) + 0.5_c_double * c
        tol = 4 * (k + 2) * eps * maxval(abs(r))
        st = ft_dgemm_gpu('N', 'N', m, n, k, 2.0_c_double, da, m, db, k, 0.5_c_double, dc, m)
        call check(st == 0, 'ft_dgemm_gpu status')
        call check(ftg_get(c_loc(c), dc, sc) == 0, 'copy back')
        call check(maxval(abs(c - r)) <= tol, 'ft_dgemm_gpu: C = 2 A B + 0.5 C')
        ! a planned fault in C on a CUDA context: injected, corrected, reported
        call check(ft_context_create(ctx, FT_DEVICE_CUDA) == 0, 'ft_context_create(CUDA)')
        f%region = FT_REGION_C
        f%row = 123
        f%col = 77
        f%bit = 60
        call check(ft_inject_add(ctx, f) == 0, 'ft_inject_add')
        st = ft_dgemm_gpu_ex(ctx, 'T', 'N', k, n, m, 1.0_c_double, da, m, dc, m, 0.0_c_double, &
                             db, k, rep)
        call check(st == 0 .and. rep%backend == FT_DEVICE_CUDA .and. rep%injected == 1 .and. &
                   rep%corrected == 1, 'ft_dgemm_gpu_ex: a fault in C injected and corrected')
        call check(ftg_get(c_loc(b), db, sb) == 0, 'copy back')
        r(1:k, 1:n) = matmul(transpose(a), c)
        call check(maxval(abs(b - r(1:k, 1:n))) <= 4 * (m + 2) * eps * maxval(abs(r(1:k, 1:n))), &
                   'ft_dgemm_gpu_ex: the corrected A^T C')
        call check(ft_context_destroy(ctx) == 0, 'ft_context_destroy')
        call ftg_free(da)
        call ftg_free(db)
        call ftg_free(dc)
    end subroutine gemm

    ! R of ft_dgeqrf_gpu_ex against R of ft_dgeqrf on the host: the same up to the signs of rows
    subroutine geqrf()
        integer(c_int), parameter :: m = 700, n = 520
        real(c_double), allocatable, target :: a(:, :), h(:, :), g(:, :), tau(:), tauh(:), &
                                               work(:)
        type(c_ptr) :: da, ctx
        type(ft_report_t) :: rep
        type(ft_fault_t) :: f
        integer(c_int) :: st, info, i, j, r
        integer(c_size_t) :: sa
        real(c_double) :: d, mx
        allocate(a(m, n), h(m, n), g(m, n), tau(n), tauh(n), work(64 * n))
        call random_number(a)
        h = a
        st = ft_dgeqrf(m, n, h, m, tauh, work, size(work, kind=c_int), info)
        call check(st == 0 .and. info == 0, 'ft_dgeqrf on the host')
        sa = 8_c_size_t * m * n
        da = dev(sa)
        call check(ft_context_create(ctx, FT_DEVICE_CUDA) == 0, 'ft_context_create(CUDA)')
        do i = 1, 2
            call check(ftg_put(da, c_loc(a), sa) == 0, 'A to the device')
            if (i == 2) then
                f%region = FT_REGION_TRAILING
                f%row = 400
                f%col = 300
                f%bit = 58
                f%step = 1
                call check(ft_inject_add(ctx, f) == 0, 'ft_inject_add(trailing)')
            end if
            st = ft_dgeqrf_gpu_ex(ctx, m, n, da, m, tau, info, rep)
            call check(st == 0 .and. info == 0 .and. rep%backend == FT_DEVICE_CUDA, &
                       'ft_dgeqrf_gpu_ex status and backend')
            if (i == 2) call check(rep%injected == 1 .and. &
                                   rep%corrected + rep%recovered >= 1, &
                                   'ft_dgeqrf_gpu_ex: the fault injected and corrected')
            call check(ftg_get(c_loc(g), da, sa) == 0, 'the factor back')
            mx = 0
            do j = 1, n
                do r = 1, j
                    d = abs(abs(g(r, j)) - abs(h(r, j)))
                    if (d > mx) mx = d
                end do
            end do
            call check(mx <= 100 * m * eps * maxval(abs(h(1:n, 1:n))), &
                       'ft_dgeqrf_gpu_ex: |R| equals the host |R|')
        end do
        call check(ft_context_destroy(ctx) == 0, 'ft_context_destroy')
        call ftg_free(da)
    end subroutine geqrf

    subroutine gels()
        integer(c_int), parameter :: m = 500, n = 300, nrhs = 3
        real(c_double), allocatable, target :: a(:, :), b(:, :), ah(:, :), bh(:, :), work(:)
        type(c_ptr) :: da, db
        integer(c_int) :: st, info
        integer(c_size_t) :: sa, sb
        allocate(a(m, n), b(m, nrhs), ah(m, n), bh(m, nrhs), work(64 * (m + n)))
        call random_number(a)
        call random_number(b)
        ah = a
        bh = b
        st = ft_dgels('N', m, n, nrhs, ah, m, bh, m, work, size(work, kind=c_int), info)
        call check(st == 0 .and. info == 0, 'ft_dgels on the host')
        sa = 8_c_size_t * m * n
        sb = 8_c_size_t * m * nrhs
        da = dev(sa)
        db = dev(sb)
        call check(ftg_put(da, c_loc(a), sa) == 0 .and. ftg_put(db, c_loc(b), sb) == 0, 'copies')
        st = ft_dgels_gpu('N', m, n, nrhs, da, m, db, m, info)
        call check(st == 0 .and. info == 0, 'ft_dgels_gpu status')
        call check(ftg_get(c_loc(b), db, sb) == 0, 'the solution back')
        call check(maxval(abs(b(1:n, :) - bh(1:n, :))) <= 1e3 * m * eps * maxval(abs(bh(1:n, :))), &
                   'ft_dgels_gpu: the solution equals the host one')
        call ftg_free(da)
        call ftg_free(db)
    end subroutine gels
end program test_fortran_gpu
