#include "ftla.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){
  int n=argc>1?atoi(argv[1]):4096; char ta=argc>2?argv[2][0]:'N';
  size_t len=(size_t)n*n; double*A=malloc(len*8),*B=malloc(len*8),*C=malloc(len*8);
  for(size_t i=0;i<len;i++){A[i]=(double)(i%97)/97-0.5;B[i]=(double)(i%89)/89-0.5;}
  ft_context_t*ctx; if(ft_context_create(&ctx,FT_DEVICE_CUDA)){printf("no cuda\n");return 77;}
  for(int r=0;r<6;r++){
    int fault = r==1||r==2||r==4;
    if(fault){ft_fault_t f={.region=FT_REGION_C,.row=100+r,.col=200+r,.bit=60,.call=-1,.step=-1};ft_inject_add(ctx,&f);}
    memset(C,0,len*8); ft_report_t rep; double t0=now();
    int st=ft_dgemm_ex(ctx,ta,'N',n,n,n,1.0,A,n,B,n,0.0,C,n,&rep);
    printf("call %d %s: status %d %.2f ms corrected %lld\n",r,fault?"fault":"clean",st,1e3*(now()-t0),(long long)rep.corrected);
  }
  ft_context_destroy(ctx); return 0;}
